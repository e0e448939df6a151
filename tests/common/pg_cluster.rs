//! A throwaway PostgreSQL cluster of one test's own: `initdb` in a temporary directory,
//! started on a free loopback port, and stopped and started again at the test's word, so
//! a test can take the database away for real (connections refused, sessions killed)
//! without touching the shared test server. Removed when dropped.
//!
//! The PostgreSQL binaries come from `MANABI_TEST_PG_BIN`, else from `pg_config
//! --bindir`, else from the newest `/usr/lib/postgresql/*/bin`. PostgreSQL refuses to run
//! as root, so under root every command runs as the `postgres` user.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PgCluster {
    /// `postgres://postgres@127.0.0.1:<port>/postgres`
    pub url: String,
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
}

impl PgCluster {
    /// A new cluster, running.
    pub fn start() -> PgCluster {
        let bin = pg_bin_dir();
        let dir = std::env::temp_dir().join(format!(
            "manabi-pg-cluster-{}",
            uuid::Uuid::now_v7().simple()
        ));
        std::fs::create_dir_all(&dir).expect("cluster dir");
        if is_root() {
            let owned = Command::new("chown")
                .arg("postgres")
                .arg(&dir)
                .status()
                .expect("chown");
            assert!(owned.success(), "chown postgres {}", dir.display());
        }
        let port = free_port();
        let cluster = PgCluster {
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            bin,
            dir,
            port,
        };
        cluster.run(
            "initdb",
            &[
                "-D",
                &cluster.data().display().to_string(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
            ],
        );
        cluster.resume();
        cluster
    }

    /// Stops the server at once (`-m immediate`): open sessions are cut, new ones refused.
    pub fn stop(&self) {
        let data = self.data().display().to_string();
        self.run("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
    }

    /// Starts the server (again) and waits until it accepts connections.
    pub fn resume(&self) {
        let data = self.data().display().to_string();
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("server.log").display().to_string();
        self.run(
            "pg_ctl",
            &["-D", &data, "-o", &options, "-l", &log, "-w", "start"],
        );
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn run(&self, program: &str, args: &[&str]) {
        let output = self
            .command(program)
            .args(args)
            .output()
            .unwrap_or_else(|error| panic!("{program}: {error}"));
        assert!(
            output.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// `program` from the PostgreSQL binaries, as the `postgres` user under root.
    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if is_root() {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        let data = self.data().display().to_string();
        let _ = self
            .command("pg_ctl")
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| output.stdout.starts_with(b"0\n"))
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

fn pg_bin_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("MANABI_TEST_PG_BIN") {
        return PathBuf::from(dir);
    }
    if let Ok(output) = Command::new("pg_config").arg("--bindir").output()
        && output.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if dir.join("initdb").exists() {
            return dir;
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    versions.sort_by_key(|bin| version_of(bin));
    versions.pop().expect(
        "no PostgreSQL binaries (initdb, pg_ctl): install postgresql or set MANABI_TEST_PG_BIN",
    )
}

/// The major version in `/usr/lib/postgresql/<version>/bin`.
fn version_of(bin: &Path) -> u32 {
    bin.parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str())
        .and_then(|name| name.parse().ok())
        .unwrap_or(0)
}
