//! A mail server on a loopback port that accepts every message and keeps it, for the
//! tests of the developer portal's sign-in mail. It speaks enough SMTP (RFC 5321) for a
//! real client: greeting, EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP,
//! QUIT.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A running sink; stops with the test's runtime.
pub struct SmtpSink {
    pub url: String,
    messages: Arc<Mutex<Vec<String>>>,
}

impl SmtpSink {
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let messages = Arc::new(Mutex::new(Vec::new()));
        let kept = messages.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(session(stream, kept.clone()));
            }
        });
        SmtpSink {
            url: format!("smtp://{address}"),
            messages,
        }
    }

    pub fn messages(&self) -> Vec<String> {
        self.messages.lock().expect("messages").clone()
    }

    /// The last `http…` link of the last message, waiting up to 5 s for it.
    pub async fn last_link(&self) -> String {
        for _ in 0..100 {
            if let Some(message) = self.messages().last() {
                let unfolded = message.replace("=\r\n", "");
                if let Some(link) = unfolded
                    .split_whitespace()
                    .rfind(|word| word.starts_with("http"))
                {
                    return link.to_owned();
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("no mail with a link arrived");
    }
}

async fn session(stream: tokio::net::TcpStream, messages: Arc<Mutex<Vec<String>>>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let _ = write.write_all(b"220 sink ESMTP\r\n").await;
    while let Ok(Some(line)) = lines.next_line().await {
        let verb = line.split_whitespace().next().unwrap_or("").to_uppercase();
        let reply: &[u8] = match verb.as_str() {
            "EHLO" => b"250-sink\r\n250 8BITMIME\r\n",
            "HELO" | "MAIL" | "RCPT" | "RSET" | "NOOP" => b"250 OK\r\n",
            "DATA" => {
                let _ = write.write_all(b"354 end with .\r\n").await;
                let mut body = String::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    if line == "." {
                        break;
                    }
                    body.push_str(line.strip_prefix('.').unwrap_or(&line));
                    body.push_str("\r\n");
                }
                messages.lock().expect("messages").push(body);
                b"250 queued\r\n"
            }
            "QUIT" => {
                let _ = write.write_all(b"221 bye\r\n").await;
                return;
            }
            _ => b"502 not implemented\r\n",
        };
        if write.write_all(reply).await.is_err() {
            return;
        }
    }
}
