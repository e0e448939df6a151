//! Reading a body from a party we do not control (an OAuth client's metadata document, an
//! OpenID provider's documents and tokens) without letting it fill our memory.

/// Why a body was not read.
#[derive(Debug)]
pub enum Uncapped {
    /// It announced, or sent, more than the cap.
    TooLarge,
    /// The connection broke off while reading.
    Broken(reqwest::Error),
}

/// The body of `response`, at most `max` bytes: refused at once when its length says
/// more, otherwise read in chunks and stopped as soon as it passes the cap.
pub async fn body(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, Uncapped> {
    if response.content_length().unwrap_or(0) > max as u64 {
        return Err(Uncapped::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(Uncapped::Broken)? {
        if body.len() + chunk.len() > max {
            return Err(Uncapped::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
