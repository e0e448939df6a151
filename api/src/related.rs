//! `getRelatedLearnables`, one page at a time: each related entry once with every kind
//! linking it (read from the requested entry), filtered by kind, most useful first (the
//! catalog's order), and an opaque cursor to the next page.
//!
//! A listing is an entry's neighbours as one caller sees them (keyless callers only see
//! the sample), after the kind filter. It never changes while the dataset does not, so a
//! cursor is a position in it plus a fingerprint of the listing it belongs to: a cursor
//! of another entry, filter, view or dataset version is refused rather than read as a
//! position in a list it was not made for. Any replica computes the same fingerprint.

use bytes::{BufMut, Bytes, BytesMut};
use manabi_schemas::params::ParamError;
use manabi_schemas::{ErrorCode, RelationshipKind, RelationshipKinds};

use crate::catalog::{Catalog, Neighbour};
use crate::error::ApiError;

/// Where the next page of a listing starts, and which listing that is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelatedCursor {
    offset: u32,
    listing: u64,
}

impl RelatedCursor {
    /// A cursor is 24 lowercase hex digits: the offset (8) and the listing's
    /// fingerprint (16).
    pub const CHARS: usize = 24;
    /// The OpenAPI `pattern` of a cursor.
    pub const PATTERN: &'static str = "^[0-9a-f]{24}$";

    pub fn parse(text: &str) -> Result<RelatedCursor, ParamError> {
        let malformed = || ParamError::new("is not a cursor of this listing's pages");
        let well_formed = text.len() == Self::CHARS
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !well_formed {
            return Err(malformed());
        }
        let (offset, listing) = text.split_at(8);
        Ok(RelatedCursor {
            offset: u32::from_str_radix(offset, 16).map_err(|_| malformed())?,
            listing: u64::from_str_radix(listing, 16).map_err(|_| malformed())?,
        })
    }

    pub fn encode(self) -> String {
        format!("{:08x}{:016x}", self.offset, self.listing)
    }
}

/// What identifies one listing across requests and replicas.
pub struct ListingKey<'a> {
    pub dataset_version: &'a str,
    pub id: &'a str,
    pub kinds: Option<RelationshipKinds>,
    pub sample_only: bool,
}

impl ListingKey<'_> {
    fn fingerprint(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for part in [self.dataset_version, self.id] {
            hasher.update(part.as_bytes());
            hasher.update(b"\n");
        }
        let kinds = self.kinds.map_or(0, RelationshipKinds::bits);
        hasher.update(&kinds.to_be_bytes());
        hasher.update(&[u8::from(self.sample_only)]);
        hasher.digest()
    }
}

/// One page of a listing, ready to be written.
pub struct Page<'a> {
    pub id: &'a str,
    pub kinds: Option<RelationshipKinds>,
    /// The listing's entries from the page's first on (at most `limit` are written).
    pub entries: Vec<&'a Neighbour>,
    pub total: usize,
    pub limit: usize,
    pub totals_by_kind: Vec<(RelationshipKind, usize)>,
    pub next_cursor: Option<RelatedCursor>,
}

/// The page of `key`'s listing that `cursor` names (the first without one), among the
/// entry's `neighbours`; `visible` says which of them the caller may see.
pub fn page<'a>(
    catalog: &'a Catalog,
    key: &ListingKey<'a>,
    neighbours: &'a [Neighbour],
    visible: impl Fn(usize) -> bool,
    cursor: Option<RelatedCursor>,
    limit: usize,
) -> Result<Page<'a>, ApiError> {
    let listing = key.fingerprint();
    if cursor.is_some_and(|cursor| cursor.listing != listing) {
        return Err(cursor_error(
            "is from another listing: a cursor only continues the listing (entry, kind \
             filter, with or without a key, dataset version) whose page returned it; start \
             again without `cursor`",
        ));
    }
    let visible: Vec<&Neighbour> = neighbours.iter().filter(|n| visible(n.target)).collect();
    let totals_by_kind = totals_by_kind(&visible);
    let mut listed: Vec<&Neighbour> = visible
        .into_iter()
        .filter(|neighbour| neighbour.first_kind(key.kinds).is_some())
        .collect();
    if key.kinds.is_some() {
        // The catalog orders by each entry's first kind of all; a filter may leave
        // another first.
        listed.sort_by_key(|n| (n.first_kind(key.kinds), catalog.usefulness(n.target)));
    }
    let total = listed.len();
    let offset = cursor.map_or(0, |cursor| cursor.offset as usize);
    if offset > 0 && offset >= total {
        return Err(cursor_error("points past the end of its listing"));
    }
    let next = offset + limit;
    let next_cursor = (next < total).then(|| RelatedCursor {
        // A listing is an entry's neighbours, far fewer than u32::MAX.
        offset: u32::try_from(next).unwrap_or(u32::MAX),
        listing,
    });
    listed.drain(..offset);
    listed.truncate(limit);
    Ok(Page {
        id: key.id,
        kinds: key.kinds,
        entries: listed,
        total,
        limit,
        totals_by_kind,
        next_cursor,
    })
}

fn cursor_error(why: &str) -> ApiError {
    ApiError::with_message(
        ErrorCode::InvalidParameter,
        format!("parameter `cursor` {why}. Nothing was charged."),
    )
}

/// How many of `visible` each kind links, most useful kind first.
fn totals_by_kind(visible: &[&Neighbour]) -> Vec<(RelationshipKind, usize)> {
    let mut counts = vec![0_usize; RelationshipKind::COUNT];
    for link in visible.iter().flat_map(|neighbour| &neighbour.links) {
        counts[link.kind.index()] += 1;
    }
    RelationshipKind::all()
        .zip(counts)
        .filter(|(_, count)| *count > 0)
        .collect()
}

/// A JSON string literal (quoted and escaped).
fn json_string(text: &str) -> String {
    // Serializing a &str cannot fail.
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// The `data` of the answer, with the stored summaries spliced in as they are.
pub fn to_json(catalog: &Catalog, page: &Page<'_>) -> Bytes {
    let mut data = BytesMut::with_capacity(400 * page.entries.len() + 256);
    data.put_slice(format!("{{\"id\":{},\"related\":[", json_string(page.id)).as_bytes());
    for (at, neighbour) in page.entries.iter().enumerate() {
        if at > 0 {
            data.put_u8(b',');
        }
        put_entry(&mut data, catalog, neighbour, page.kinds);
    }
    let kinds = page.kinds.map_or_else(
        || "null".to_owned(),
        |kinds| {
            let names: Vec<String> = kinds.iter().map(|k| json_string(k.name())).collect();
            format!("[{}]", names.join(","))
        },
    );
    let totals: Vec<String> = page
        .totals_by_kind
        .iter()
        .map(|(kind, count)| format!("{}:{count}", json_string(kind.name())))
        .collect();
    let next_cursor = page
        .next_cursor
        .map_or_else(|| "null".to_owned(), |cursor| json_string(&cursor.encode()));
    let tail = format!(
        "],\"total\":{},\"limit\":{},\"kind\":{kinds},\"totals_by_kind\":{{{}}},\
         \"next_cursor\":{next_cursor}}}",
        page.total,
        page.limit,
        totals.join(",")
    );
    data.put_slice(tail.as_bytes());
    data.freeze()
}

/// One related entry: its first relationship (as the first release named it), all of
/// them, and the stored summary.
fn put_entry(
    data: &mut BytesMut,
    catalog: &Catalog,
    neighbour: &Neighbour,
    kinds: Option<RelationshipKinds>,
) {
    let links: Vec<String> = neighbour
        .links_of(kinds)
        .map(|link| {
            format!(
                "{{\"kind\":{},\"basis\":{}}}",
                json_string(link.kind.name()),
                json_string(&link.basis)
            )
        })
        .collect();
    let first = neighbour.links_of(kinds).next();
    let (kind, basis) = first.map_or(("", ""), |link| (link.kind.name(), &*link.basis));
    let head = format!(
        "{{\"relationship\":{},\"basis\":{},\"relationships\":[{}],\"learnable\":",
        json_string(kind),
        json_string(basis),
        links.join(",")
    );
    data.put_slice(head.as_bytes());
    data.put_slice(&catalog.entries[neighbour.target].summary_json);
    data.put_u8(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_anything_else_is_refused() {
        let cursor = RelatedCursor {
            offset: 40,
            listing: 0xfeed_beef_0123_4567,
        };
        let text = cursor.encode();
        assert_eq!(text, "00000028feedbeef01234567");
        assert_eq!(RelatedCursor::parse(&text), Ok(cursor));
        for bad in [
            "",
            "00000028feedbeef0123456",
            "00000028feedbeef012345678",
            "00000028FEEDBEEF01234567",
            "0000002-feedbeef01234567",
            "+0000028feedbeef01234567",
            "３00000028feedbeef012345",
        ] {
            assert!(RelatedCursor::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn fingerprints_tell_listings_apart() {
        let antonyms = RelationshipKinds::parse("antonym").ok();
        let key = |id, kinds, sample_only| ListingKey {
            dataset_version: "1",
            id,
            kinds,
            sample_only,
        };
        let base = key("kanji-65e5", None, false).fingerprint();
        assert_eq!(base, key("kanji-65e5", None, false).fingerprint());
        for other in [
            key("kanji-6708", None, false),
            key("kanji-65e5", antonyms, false),
            key("kanji-65e5", None, true),
        ] {
            assert_ne!(base, other.fingerprint());
        }
    }
}
