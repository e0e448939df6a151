//! The Stripe stand-in (`manabi_tests::stripe`) as a process, for the browser suite:
//! `stripe-standin --webhook http://…/stripe/webhook [--bind ADDR]` prints
//! `listening on http://…` and serves until killed. Its secret key and webhook secret
//! are `manabi_tests::stripe::SECRET_KEY` and `WEBHOOK_SECRET`.

use manabi_tests::stripe::FakeStripe;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let (mut bind, mut webhook) = ("127.0.0.1:0".to_owned(), None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bind" => bind = args.next().expect("--bind takes an address"),
            "--webhook" => webhook = args.next(),
            other => panic!("unknown argument {other}; usage: stripe-standin --webhook URL"),
        }
    }
    let listener = tokio::net::TcpListener::bind(&bind)
        .await
        .expect("bind the stand-in's address");
    let stripe = FakeStripe::start_on(listener);
    if let Some(webhook) = webhook {
        stripe.set_webhook(&webhook);
    }
    println!("listening on {}", stripe.url);
    tokio::signal::ctrl_c().await.ok();
}
