//! The stand-in x402 facilitator (`manabi_tests::x402`) as a process, for the suites
//! that drive the official x402 clients against a running server:
//! `x402-facilitator --bind 127.0.0.1:0` prints `listening on http://…` and serves until
//! killed.

use manabi_tests::x402::FakeFacilitator;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut bind = "127.0.0.1:0".to_owned();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bind" => bind = args.next().expect("--bind takes an address"),
            other => panic!("unknown argument {other}; usage: x402-facilitator [--bind ADDR]"),
        }
    }
    let listener = tokio::net::TcpListener::bind(&bind)
        .await
        .expect("bind the facilitator's address");
    let facilitator = FakeFacilitator::start_on(listener);
    println!("listening on {}", facilitator.url);
    tokio::signal::ctrl_c().await.ok();
}
