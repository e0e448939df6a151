//! Mailing sign-in links: over SMTP when `MANABI_SMTP_URL` is set (lettre), else
//! printed on the server's standard output, which is where an operator of the embedded
//! default looks (the page says so).

use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::{ExposeSecret, SecretString};

/// How links leave the server.
#[derive(Clone)]
pub enum Mailer {
    Smtp {
        transport: Box<AsyncSmtpTransport<Tokio1Executor>>,
        from: Mailbox,
    },
    Console,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mailer::Smtp { .. } => "Mailer::Smtp",
            Mailer::Console => "Mailer::Console",
        })
    }
}

/// Where a link went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    Mailed,
    Console,
}

impl Mailer {
    /// SMTP at `url` (`smtp://host:port`, `smtps://user:password@host`; lettre's URL
    /// form) sending as `from`, or the console without a URL.
    pub fn new(url: Option<&SecretString>, from: &str) -> Result<Mailer, String> {
        let Some(url) = url else {
            return Ok(Mailer::Console);
        };
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose_secret())
            .map_err(|error| format!("MANABI_SMTP_URL is not an SMTP URL: {error}"))?
            .build();
        let from = from
            .parse()
            .map_err(|error| format!("MANABI_SMTP_FROM `{from}`: {error}"))?;
        Ok(Mailer::Smtp {
            transport: Box::new(transport),
            from,
        })
    }

    /// Sends the sign-in `link` to `to`.
    pub async fn send_link(&self, to: &str, link: &str) -> Result<Delivery, String> {
        let Mailer::Smtp { transport, from } = self else {
            // The embedded default: the operator reads the link on the console.
            println!("manabi sign-in link for {to}: {link}");
            return Ok(Delivery::Console);
        };
        let to: Mailbox = to
            .parse()
            .map_err(|error| format!("the address cannot receive mail: {error}"))?;
        let body = format!(
            "Sign in to manabi with this link (it works once, for {} minutes):\n\n{link}\n\n\
             If you did not ask to sign in, ignore this mail.\n",
            super::session::LINK_MINUTES
        );
        let message = Message::builder()
            .from(from.clone())
            .to(to)
            .subject("Your manabi sign-in link")
            .header(ContentType::TEXT_PLAIN)
            .body(body)
            .map_err(|error| format!("the mail could not be built: {error}"))?;
        transport
            .send(message)
            .await
            .map(|_| Delivery::Mailed)
            .map_err(|error| format!("the mail server refused the message: {error}"))
    }
}
