//! Typo-tolerant term lookup by deletion variants (the idea of SymSpell): two words are
//! within `d` edits only if deleting at most `d` characters from each gives one common
//! string. The table, built once with the index, holds every such deletion of every term
//! a typo can reach; a lookup deletes from the key, probes the table, and checks the
//! real edit distance of the few terms it finds. Walking the dictionary with an
//! edit-distance automaton instead touched thousands of paths per key (every first
//! character is one substitution away), which made a typo search cost a millisecond.

/// Latin words from this length tolerate one typo, and from the second length two: a
/// shorter word is one edit away from too many others for a person to see the link.
pub(crate) const LATIN_TYPO_ONE_CHARS_MIN: usize = 5;
pub(crate) const LATIN_TYPO_TWO_CHARS_MIN: usize = 9;
/// Kana words from this length tolerate one typo; shorter kana words are too dense
/// (`わたし` is one edit from the archaic reading `わた` of 海).
pub(crate) const KANA_TYPO_ONE_CHARS_MIN: usize = 4;
/// Longer keys get no typo tolerance: a key of `n` characters probes about `n² / 2`
/// variants at two edits, and no stored term is this long anyway.
pub(crate) const TYPO_KEY_CHARS_MAX: usize = 64;
/// The largest edit distance any key gets.
const TYPO_EDITS_MAX: usize = 2;
/// Variants per bucket of the table, on average: a probe reads one bucket, and eight
/// bytes a variant keep a bucket within a cache line or two.
const VARIANTS_PER_BUCKET: usize = 4;
/// Held terms are numbered in the low bits of a slot; the top two say how many
/// characters the variant lacks.
const HELD_BITS: u32 = 30;

/// The edits a key tolerates: Latin words of 5–8 characters one, of 9+ two; kana words
/// of 4+ characters one; anything else none.
pub(crate) fn typo_distance(key: &str, latin: bool) -> u8 {
    let chars = key.chars().count();
    if chars > TYPO_KEY_CHARS_MAX {
        0
    } else if latin {
        match chars {
            n if n >= LATIN_TYPO_TWO_CHARS_MIN => 2,
            n if n >= LATIN_TYPO_ONE_CHARS_MIN => 1,
            _ => 0,
        }
    } else if chars >= KANA_TYPO_ONE_CHARS_MIN && crate::kana::is_kana(key) {
        1
    } else {
        0
    }
}

/// How many deletions of a term the table must hold so that every key that can reach
/// it finds it. Each character a key lacks costs an edit, so a Latin key of 8+
/// characters (two edits) reaches only terms of 6+ characters with at most two
/// characters a Latin key cannot hold (non-ASCII, spaces), a Latin key of 4–7
/// characters (one edit) terms of 3–8 characters with at most one, and a kana key terms
/// of 2+ characters with at most one non-kana.
fn deletions_needed(term: &str) -> u8 {
    let chars = term.chars().count();
    if chars > TYPO_KEY_CHARS_MAX + TYPO_EDITS_MAX {
        return 0;
    }
    let non_latin = term.chars().filter(|&c| !in_latin_key(c)).count();
    if chars + 2 >= LATIN_TYPO_TWO_CHARS_MIN && non_latin <= 2 {
        return 2;
    }
    let latin_one = chars + 1 >= LATIN_TYPO_ONE_CHARS_MIN
        && chars <= LATIN_TYPO_TWO_CHARS_MIN
        && non_latin <= 1;
    let kana_one = chars + 1 >= KANA_TYPO_ONE_CHARS_MIN
        && term.chars().filter(|c| !is_kana_char(*c)).count() <= 1;
    u8::from(latin_one || kana_one)
}

/// Whether a Latin key can hold the character: keys are single query words of ASCII,
/// split on whitespace and the separators of [`crate::query::words`].
fn in_latin_key(c: char) -> bool {
    c.is_ascii() && !crate::query::is_word_separator(c)
}

fn is_kana_char(c: char) -> bool {
    crate::kana::is_kana(c.encode_utf8(&mut [0; 4]))
}

/// One deletion variant: the low 32 bits of its hash and the term it came from.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    fingerprint: u32,
    /// The held term's position in [`TypoTable::numbers`], and (top bits) how many
    /// characters were deleted.
    held: u32,
}

impl Slot {
    fn term(self) -> u32 {
        self.held & ((1 << HELD_BITS) - 1)
    }

    fn deletions(self) -> u8 {
        (self.held >> HELD_BITS) as u8
    }
}

/// The deletion variants of every term a typo can reach, hashed into buckets.
#[derive(Default)]
pub(crate) struct TypoTable {
    /// The held terms end to end: term `i` is `texts[starts[i]..starts[i + 1]]`.
    texts: String,
    starts: Vec<u32>,
    /// The index's term number of each held term.
    numbers: Vec<u32>,
    /// `slots[buckets[b]..buckets[b + 1]]` are the variants whose hash starts with `b`.
    buckets: Vec<u32>,
    slots: Vec<Slot>,
    bucket_bits: u32,
}

impl TypoTable {
    /// The table over `(term, term number)` pairs. Terms no typo can reach are left out.
    pub(crate) fn build<'t>(terms: impl IntoIterator<Item = (&'t str, u32)>) -> TypoTable {
        let mut table = TypoTable::default();
        let mut depths = Vec::new();
        let mut variants_max = 0usize;
        table.starts.push(0);
        for (term, number) in terms {
            let depth = deletions_needed(term);
            if depth == 0 || table.numbers.len() >= 1 << HELD_BITS {
                continue;
            }
            let chars = term.chars().count();
            variants_max += 1 + chars + usize::from(depth == 2) * chars * chars / 2;
            table.texts.push_str(term);
            table.starts.push(table.texts.len() as u32);
            table.numbers.push(number);
            depths.push(depth);
        }
        table.bucket_bits = (variants_max / VARIANTS_PER_BUCKET)
            .max(1)
            .next_power_of_two()
            .trailing_zeros();
        table.fill(&depths);
        table
    }

    /// Counts the variants of each bucket, then writes them in place: two passes over
    /// the variants instead of a sort of millions of them.
    fn fill(&mut self, depths: &[u8]) {
        let mut counts = vec![0u32; (1usize << self.bucket_bits) + 1];
        let mut scratch = Variants::default();
        for (held, &depth) in depths.iter().enumerate() {
            scratch.each(self.text(held), depth, |hash, _| {
                counts[self.bucket_of(hash)] += 1;
            });
        }
        let mut total = 0u32;
        for count in &mut counts {
            let here = *count;
            *count = total;
            total += here;
        }
        let mut cursor = counts.clone();
        let mut slots = vec![Slot::default(); total as usize];
        for (held, &depth) in depths.iter().enumerate() {
            scratch.each(self.text(held), depth, |hash, deletions| {
                let at = &mut cursor[self.bucket_of(hash)];
                slots[*at as usize] = Slot {
                    fingerprint: hash as u32,
                    held: held as u32 | u32::from(deletions) << HELD_BITS,
                };
                *at += 1;
            });
        }
        self.buckets = counts;
        self.slots = slots;
    }

    fn text(&self, held: usize) -> &str {
        &self.texts[self.starts[held] as usize..self.starts[held + 1] as usize]
    }

    fn bucket_of(&self, hash: u64) -> usize {
        if self.bucket_bits == 0 {
            0
        } else {
            (hash >> (64 - self.bucket_bits)) as usize
        }
    }

    /// Calls `found` with the number of every term within `distance` edits of `key`
    /// (insertions, deletions and substitutions of characters) and its edits (a changed
    /// first letter counting two), each once, in term order.
    pub(crate) fn within(&self, key: &str, distance: u8, mut found: impl FnMut(u32, u8)) {
        let key_chars: Vec<char> = key.chars().collect();
        if distance == 0 || key_chars.len() > TYPO_KEY_CHARS_MAX || self.numbers.is_empty() {
            return;
        }
        let mut candidates = Vec::new();
        Variants::default().each(key, distance, |hash, _| {
            let bucket = self.bucket_of(hash);
            let slots =
                &self.slots[self.buckets[bucket] as usize..self.buckets[bucket + 1] as usize];
            for slot in slots {
                if slot.fingerprint == hash as u32 && slot.deletions() <= distance {
                    candidates.push(slot.term());
                }
            }
        });
        candidates.sort_unstable();
        candidates.dedup();
        for held in candidates {
            let held = held as usize;
            let text = self.text(held);
            // A changed first letter counts as two edits: people rarely mistype it, and
            // `sushi` → `ushi` (牛) is no typo anyone would see.
            let budget = if text.chars().next() == key_chars.first().copied() {
                distance
            } else {
                distance - 1
            };
            if budget == 0 || !within_distance(&key_chars, text, usize::from(budget)) {
                continue;
            }
            let edits = if budget > 1 && !within_distance(&key_chars, text, 1) {
                2
            } else {
                1 + distance - budget
            };
            found(self.numbers[held], edits);
        }
    }

    /// Bytes held, for the start-up report.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.texts.len()
            + 4 * (self.starts.len() + self.numbers.len() + self.buckets.len())
            + std::mem::size_of::<Slot>() * self.slots.len()
    }
}

/// Enumerates the deletion variants of a text by hash, reusing its buffers. The hash is
/// a polynomial over the bytes, so the hash of any variant comes from the prefix hashes
/// in constant time instead of one pass over its bytes (a term of 15 characters has
/// over a hundred variants).
#[derive(Default)]
struct Variants {
    /// Byte offset of every character, and the text's length last.
    bounds: Vec<usize>,
    chars: Vec<char>,
    /// `prefixes[n]` is the hash of the first `n` bytes.
    prefixes: Vec<u64>,
    /// `powers[n]` is `HASH_BASE` to the `n`.
    powers: Vec<u64>,
}

impl Variants {
    /// Calls `each(hash, deletions)` for the text itself and every variant with up to
    /// `depth` characters deleted. Deleting any one character of a run of equal ones
    /// gives the same text, so only a run's first characters are deleted.
    fn each(&mut self, text: &str, depth: u8, mut each: impl FnMut(u64, u8)) {
        let bytes = text.as_bytes();
        self.bounds.clear();
        self.chars.clear();
        for (at, c) in text.char_indices() {
            self.bounds.push(at);
            self.chars.push(c);
        }
        self.bounds.push(bytes.len());
        self.prefixes.clear();
        self.prefixes.push(0);
        while self.powers.len() <= bytes.len() {
            let next = self
                .powers
                .last()
                .map_or(1, |power| power.wrapping_mul(HASH_BASE));
            self.powers.push(next);
        }
        for &byte in bytes {
            let last = self.prefixes[self.prefixes.len() - 1];
            self.prefixes
                .push(last.wrapping_mul(HASH_BASE).wrapping_add(u64::from(byte)));
        }
        let (prefixes, powers) = (&self.prefixes, &self.powers);
        // The hash of `bytes[from..to]`.
        let piece = |from: usize, to: usize| {
            prefixes[to].wrapping_sub(prefixes[from].wrapping_mul(powers[to - from]))
        };
        let join = |head: u64, tail_from: usize, tail_to: usize| {
            head.wrapping_mul(powers[tail_to - tail_from])
                .wrapping_add(piece(tail_from, tail_to))
        };
        let end = bytes.len();
        each(finish(prefixes[end]), 0);
        if depth == 0 {
            return;
        }
        let (bounds, chars) = (&self.bounds, &self.chars);
        let run_start = |at: usize| at == 0 || chars[at] != chars[at - 1];
        for first in (0..chars.len()).filter(|&at| run_start(at)) {
            let before = prefixes[bounds[first]];
            each(finish(join(before, bounds[first + 1], end)), 1);
            if depth < 2 {
                continue;
            }
            for second in first + 1..chars.len() {
                // The second deletion of a run is its second character, right after the first.
                if !run_start(second) && second != first + 1 {
                    continue;
                }
                let between = join(before, bounds[first + 1], bounds[second]);
                each(finish(join(between, bounds[second + 1], end)), 2);
            }
        }
    }
}

/// An odd multiplier with well-mixed bits (the golden ratio in 64 bits).
const HASH_BASE: u64 = 0x9e37_79b9_7f4a_7c15;

/// Mixes every bit into the top ones, which pick the bucket (MurmurHash3's finaliser).
fn finish(mut hash: u64) -> u64 {
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

/// Whether the edit distance between the key and the term (in characters) is at most
/// `distance`; gives up as soon as a whole row of the table exceeds it.
fn within_distance(key: &[char], term: &str, distance: usize) -> bool {
    let mut row = [0usize; TYPO_KEY_CHARS_MAX + 1];
    let row = &mut row[..=key.len()];
    for (at, cell) in row.iter_mut().enumerate() {
        *cell = at;
    }
    for (at, c) in term.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = at + 1;
        let mut best = row[0];
        for (k, &key_char) in key.iter().enumerate() {
            let substitute = diagonal + usize::from(key_char != c);
            diagonal = row[k + 1];
            row[k + 1] = substitute.min(diagonal + 1).min(row[k] + 1);
            best = best.min(row[k + 1]);
        }
        if best > distance {
            return false;
        }
    }
    row[key.len()] <= distance
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(table: &TypoTable, key: &str, distance: u8) -> Vec<u32> {
        let mut out = Vec::new();
        table.within(key, distance, |number, _| out.push(number));
        out
    }

    #[test]
    fn distances_count_characters() {
        let key: Vec<char> = "taberu".chars().collect();
        assert!(within_distance(&key, "taberu", 0));
        assert!(within_distance(&key, "tabero", 1));
        assert!(within_distance(&key, "tabru", 1));
        assert!(!within_distance(&key, "tbru", 1));
        assert!(within_distance(&key, "tbru", 2));
        let kana: Vec<char> = "たべる".chars().collect();
        assert!(within_distance(&kana, "たべ", 1));
        assert!(within_distance(&kana, "食べる", 1));
        assert!(!within_distance(&kana, "食べ物", 1));
    }

    #[test]
    fn runs_of_equal_characters_match_either_way() {
        let terms = ["aabbcc", "abc", "bookkeeper", "coffee", "cofee"];
        let table = TypoTable::build(terms.iter().zip(0..).map(|(t, n)| (*t, n)));
        assert_eq!(found(&table, "cofee", 1), [3, 4]);
        assert_eq!(found(&table, "coffe", 1), [3, 4]);
        assert_eq!(found(&table, "bokeeper", 2), [2]);
        assert_eq!(found(&table, "bookeepr", 2), [2]);
        assert_eq!(found(&table, "abbcc", 1), [0]);
    }

    #[test]
    fn only_reachable_terms_are_held() {
        assert_eq!(deletions_needed("abc"), 0);
        assert_eq!(deletions_needed("abcd"), 1);
        assert_eq!(deletions_needed("abcdef"), 1);
        assert_eq!(deletions_needed("abcdefg"), 2);
        assert_eq!(deletions_needed("たべ"), 0);
        assert_eq!(deletions_needed("たべる"), 1);
        assert_eq!(deletions_needed("食べる"), 1);
        assert_eq!(deletions_needed("食べ物"), 0);
        assert_eq!(deletions_needed(&"a".repeat(67)), 0);
    }
}
