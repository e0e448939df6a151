//! The two indexes a server searches: one over every entry for callers with a key, and
//! one over the evaluation sample alone for keyless callers, so a keyless search (the
//! sample is under a tenth of the dataset) never walks the full dictionary. Both are
//! built by the same code and rank by the same key; the sample keeps the artifact order,
//! so ties break the same way, and a keyless answer is exactly the full index's answer
//! filtered to the sample.

use crate::index::{EmbeddedIndex, IndexEntry, IndexError, SearchHits, SearchRequest};

/// The full index and the sample's own index, searched by who is asking.
#[derive(Debug)]
pub struct SearchIndex {
    full: EmbeddedIndex,
    sample: EmbeddedIndex,
    /// Position in the full entry list of each entry of the sample index.
    sample_positions: Vec<usize>,
}

impl SearchIndex {
    /// Builds both indexes; hit positions refer to the order of `entries`. The sample
    /// index is small and builds on its own thread while the full one builds, then
    /// takes the full one's English lexicon (whether a word is English decides how a
    /// guess ranks, and must not depend on which index answers).
    pub fn build(entries: &[IndexEntry<'_>]) -> Result<SearchIndex, IndexError> {
        let (sample_positions, sample_entries): (Vec<usize>, Vec<IndexEntry<'_>>) = entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry.sample)
            .map(|(at, entry)| (at, *entry))
            .unzip();
        let (full, sample) = std::thread::scope(|scope| {
            let sample = scope.spawn(|| EmbeddedIndex::build(&sample_entries));
            let full = EmbeddedIndex::build(entries);
            let sample = sample
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (full, sample)
        });
        let full = full?;
        let sample = sample?.sharing_english_of(&full);
        Ok(SearchIndex {
            full,
            sample,
            sample_positions,
        })
    }

    /// Ranks the matching entries: the sample's only when `request.sample_only`.
    pub fn search(&self, request: &SearchRequest<'_>) -> SearchHits {
        if !request.sample_only {
            return self.full.search(request);
        }
        let mut found = self.sample.search(request);
        for hit in &mut found.hits {
            *hit = self.sample_positions[*hit];
        }
        found
    }

    /// The index over every entry.
    pub fn full(&self) -> &EmbeddedIndex {
        &self.full
    }

    /// The index over the evaluation sample; its hit positions count sample entries only.
    pub fn sample(&self) -> &EmbeddedIndex {
        &self.sample
    }

    /// Entries of the full index.
    pub fn len(&self) -> usize {
        self.full.len()
    }

    pub fn is_empty(&self) -> bool {
        self.full.is_empty()
    }

    /// Distinct terms of the full index.
    pub fn term_count(&self) -> usize {
        self.full.term_count()
    }
}

#[cfg(test)]
mod tests {
    use manabi_schemas::{Domain, LearnableSummary, LearnableType};

    use super::*;
    use crate::Surface;

    fn summary(id: &str, level: u8) -> LearnableSummary {
        LearnableSummary {
            id: id.to_owned(),
            label: Some(id.to_owned()),
            kind: LearnableType::Vocabulary,
            domain: Domain::Language,
            jlpt_level: Some(level),
            is_common_word: Some(true),
            canonical_name: None,
            pattern: None,
            meaning: None,
            writing_forms: Vec::new(),
            tags: Vec::new(),
        }
    }

    fn surface(form: &str, reading: &str, meanings: &[&str]) -> Surface {
        Surface {
            forms: vec![form.to_owned()],
            readings: vec![reading.to_owned()],
            romaji: vec![crate::kana::to_romaji(reading)],
            meanings: meanings.iter().map(|m| m.to_string()).collect(),
            aliases: Vec::new(),
            frequency: None,
        }
    }

    #[test]
    fn keyless_searches_equal_the_full_index_filtered_to_the_sample() {
        let summaries: Vec<_> = (0..6).map(|n| summary(&format!("e{n}"), 5)).collect();
        let surfaces = [
            surface("食べる", "たべる", &["eat"]),
            surface("食べ物", "たべもの", &["food"]),
            surface("食う", "くう", &["eat"]),
            surface("飲む", "のむ", &["drink"]),
            surface("食堂", "しょくどう", &["dining", "hall"]),
            surface("食事", "しょくじ", &["meal"]),
        ];
        let entries: Vec<IndexEntry<'_>> = summaries
            .iter()
            .zip(&surfaces)
            .enumerate()
            .map(|(at, (summary, surface))| IndexEntry {
                summary,
                surface,
                sample: at % 2 == 1,
            })
            .collect();
        let index = SearchIndex::build(&entries).unwrap();
        assert_eq!(index.sample().len(), 3);
        for query in [
            "eat", "taberu", "tabemono", "たべ", "食", "fod", "xyz", "shokuji",
        ] {
            for limit in [1, 2, 10] {
                let request = SearchRequest {
                    query,
                    kind: None,
                    jlpt_level: None,
                    sample_only: true,
                    limit,
                };
                let keyless = index.search(&request);
                let filtered = index.full().search(&request);
                assert_eq!(keyless, filtered, "{query} limit {limit}");
                assert!(keyless.hits.iter().all(|&hit| entries[hit].sample));
            }
        }
    }
}
