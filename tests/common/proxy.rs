//! A TCP forwarder a test puts between a server and its database, to make the database
//! unreachable and reachable again without touching the database itself.

use std::sync::Mutex;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// Forwards `127.0.0.1:<port>` to `target` while running.
pub struct TcpProxy {
    pub address: String,
    target: String,
    running: Mutex<Option<JoinSet<()>>>,
}

impl TcpProxy {
    /// A proxy to `target` (`host:port`) on a free loopback port, forwarding at once.
    pub async fn start(target: &str) -> TcpProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address").to_string();
        let proxy = TcpProxy {
            address,
            target: target.to_owned(),
            running: Mutex::new(None),
        };
        proxy.serve(listener);
        proxy
    }

    fn serve(&self, listener: TcpListener) {
        let mut tasks = JoinSet::new();
        let target = self.target.clone();
        tasks.spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((mut client, _)) = listener.accept().await {
                let target = target.clone();
                connections.spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
        *self.running.lock().expect("proxy state") = Some(tasks);
    }

    /// Closes the listener and every forwarded connection: the target is unreachable.
    pub fn stop(&self) {
        if let Some(mut tasks) = self.running.lock().expect("proxy state").take() {
            tasks.abort_all();
        }
    }

    /// Listens on the same port again.
    pub async fn resume(&self) {
        let listener = TcpListener::bind(&self.address).await.expect("rebind");
        self.serve(listener);
    }
}
