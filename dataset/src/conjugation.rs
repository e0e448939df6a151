//! Conjugation by rule: the forms of a verb, an adjective or the copula from the
//! dictionary form and its class (JMdict's part-of-speech codes for vocabulary; the last
//! word of the pattern for grammar points, see [`pattern_forms`]).
//!
//! Written by hand: the one crate that conjugates Japanese (jp_inflections) is GPL-3.0
//! and knows neither adjectives nor the copula. The rules are those of any textbook
//! grammar table; `tests` holds a table checked by hand against them.

use manabi_schemas::vocabulary::{ConjugatedForm, Conjugation};

/// How a word conjugates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// 一段: 食べる, 見る (JMdict `v1`; `v1-s` is くれる, imperative くれ).
    Ichidan { kureru: bool },
    /// 五段 on the final kana of the dictionary form (JMdict `v5*`).
    Godan(Godan),
    /// する and nouns + する written with it (`vs-i`).
    Suru,
    /// 来る (`vk`).
    Kuru,
    /// い-adjectives (`adj-i`).
    IAdjective,
    /// いい/良い (`adj-ix`): every form but the plain one is built on よ.
    Yoi,
    /// な-adjectives (`adj-na`), given without な.
    NaAdjective,
    /// The copula だ and what ends in it (〜一方だ).
    Copula,
}

/// Godan verbs, with the irregular members JMdict gives their own codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Godan {
    Regular,
    /// 行く/いく (`v5k-s`): te and past with っ.
    Iku,
    /// ある (`v5r-i`): negative ない.
    Aru,
    /// 問う, 請う (`v5u-s`): te とうて, past とうた.
    Tou,
    /// くださる, いらっしゃる, おっしゃる, なさる, ござる (`v5aru`): masu stem and
    /// imperative in い.
    Aru5,
}

impl Class {
    /// The class of a JMdict part-of-speech code, for a dictionary form ending as the
    /// class requires (a `v5k` ending in く ...).
    pub fn from_jmdict(pos: &str, reading: &str) -> Option<Class> {
        let last = reading.chars().last()?;
        let class = match pos {
            "v1" => Class::Ichidan { kureru: false },
            "v1-s" => Class::Ichidan { kureru: true },
            "v5k-s" => Class::Godan(Godan::Iku),
            "v5r-i" => Class::Godan(Godan::Aru),
            "v5u-s" => Class::Godan(Godan::Tou),
            "v5aru" => Class::Godan(Godan::Aru5),
            "v5u" | "v5k" | "v5g" | "v5s" | "v5t" | "v5n" | "v5b" | "v5m" | "v5r" => {
                Class::Godan(Godan::Regular)
            }
            "vs-i" if reading.ends_with("する") => Class::Suru,
            "vk" => Class::Kuru,
            "adj-i" => Class::IAdjective,
            "adj-ix" => Class::Yoi,
            "adj-na" => Class::NaAdjective,
            _ => return None,
        };
        let fits = match class {
            Class::Ichidan { .. } => last == 'る',
            // The code names the ending: v5k ends in く, v5aru and v5r-i in る.
            Class::Godan(_) => {
                let ending = match pos.trim_start_matches("v5").chars().next() {
                    Some('a') => 'る',
                    Some(c) => row_kana(c),
                    None => ' ',
                };
                last == ending
            }
            Class::Kuru => reading.ends_with("くる"),
            Class::IAdjective | Class::Yoi => last == 'い',
            _ => true,
        };
        fits.then_some(class)
    }

    /// The name the artifact gives the class.
    pub fn name(self) -> &'static str {
        match self {
            Class::Ichidan { .. } => "ichidan",
            Class::Godan(Godan::Iku) => "godan-iku",
            Class::Godan(Godan::Aru) => "godan-aru",
            Class::Godan(Godan::Tou) => "godan-tou",
            Class::Godan(Godan::Aru5) => "godan-honorific",
            Class::Godan(Godan::Regular) => "godan",
            Class::Suru => "suru",
            Class::Kuru => "kuru",
            Class::IAdjective => "i-adjective",
            Class::Yoi => "i-adjective-ii",
            Class::NaAdjective => "na-adjective",
            Class::Copula => "copula",
        }
    }
}

/// The u-row kana a godan code's letter names (`v5k` → く).
fn row_kana(letter: char) -> char {
    match letter {
        'u' => 'う',
        'k' => 'く',
        'g' => 'ぐ',
        's' => 'す',
        't' => 'つ',
        'n' => 'ぬ',
        'b' => 'ぶ',
        'm' => 'む',
        'r' => 'る',
        _ => ' ',
    }
}

/// The a, i, e and o rows of a godan ending.
fn row(last: char) -> Option<[char; 4]> {
    Some(match last {
        'う' => ['わ', 'い', 'え', 'お'],
        'く' => ['か', 'き', 'け', 'こ'],
        'ぐ' => ['が', 'ぎ', 'げ', 'ご'],
        'す' => ['さ', 'し', 'せ', 'そ'],
        'つ' => ['た', 'ち', 'て', 'と'],
        'ぬ' => ['な', 'に', 'ね', 'の'],
        'ぶ' => ['ば', 'び', 'べ', 'ぼ'],
        'む' => ['ま', 'み', 'め', 'も'],
        'る' => ['ら', 'り', 'れ', 'ろ'],
        _ => return None,
    })
}

/// The forms a table lists, in order: verbs, then adjectives and the copula.
const VERB_FORMS: [&str; 14] = [
    "dictionary",
    "polite",
    "negative",
    "polite-negative",
    "past",
    "polite-past",
    "negative-past",
    "te",
    "potential",
    "passive",
    "causative",
    "volitional",
    "imperative",
    "conditional",
];
/// The copula has no adverbial form.
const COPULA_FORMS: [&str; 7] = [
    "dictionary",
    "polite",
    "negative",
    "past",
    "negative-past",
    "te",
    "conditional",
];
const COPULA_SUFFIXES: [&str; 7] = [
    "だ",
    "です",
    "ではない",
    "だった",
    "ではなかった",
    "で",
    "なら",
];
const ADJECTIVE_FORMS: [&str; 8] = [
    "dictionary",
    "polite",
    "negative",
    "past",
    "negative-past",
    "te",
    "adverbial",
    "conditional",
];

/// `text` without its last `n` characters.
fn drop_last(text: &str, n: usize) -> &str {
    let cut = text
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(at, _)| at);
    if n == 0 { text } else { &text[..cut] }
}

/// Every form of `word` (ending in its dictionary ending) in the order of the class's
/// form list.
fn forms_of(word: &str, class: Class) -> Vec<String> {
    let stem = |n: usize| drop_last(word, n).to_owned();
    let with = |n: usize, suffixes: &[&str]| -> Vec<String> {
        suffixes.iter().map(|s| format!("{}{s}", stem(n))).collect()
    };
    match class {
        Class::Ichidan { kureru } => {
            // くれる's imperative is くれ.
            let imperative = if kureru { "" } else { "ろ" };
            with(
                1,
                &[
                    "る",
                    "ます",
                    "ない",
                    "ません",
                    "た",
                    "ました",
                    "なかった",
                    "て",
                    "られる",
                    "られる",
                    "させる",
                    "よう",
                    imperative,
                    "れば",
                ],
            )
        }
        Class::Godan(godan) => {
            let last = word.chars().last().unwrap_or('る');
            let [a, i, e, o] = row(last).unwrap_or(['ら', 'り', 'れ', 'ろ']);
            let base = stem(1);
            let (te, ta) = match (godan, last) {
                (Godan::Iku, _) => ("って", "った"),
                (Godan::Tou, _) => ("うて", "うた"),
                (_, 'う' | 'つ' | 'る') => ("って", "った"),
                (_, 'く') => ("いて", "いた"),
                (_, 'ぐ') => ("いで", "いだ"),
                (_, 'す') => ("して", "した"),
                _ => ("んで", "んだ"),
            };
            let masu = if godan == Godan::Aru5 { 'い' } else { i };
            let imperative = if godan == Godan::Aru5 { 'い' } else { e };
            let (negative, negative_past) = if godan == Godan::Aru {
                let before = drop_last(word, 2);
                (format!("{before}ない"), format!("{before}なかった"))
            } else {
                (format!("{base}{a}ない"), format!("{base}{a}なかった"))
            };
            vec![
                word.to_owned(),
                format!("{base}{masu}ます"),
                negative,
                format!("{base}{masu}ません"),
                format!("{base}{ta}"),
                format!("{base}{masu}ました"),
                negative_past,
                format!("{base}{te}"),
                format!("{base}{e}る"),
                format!("{base}{a}れる"),
                format!("{base}{a}せる"),
                format!("{base}{o}う"),
                format!("{base}{imperative}"),
                format!("{base}{e}ば"),
            ]
        }
        Class::Suru => with(
            2,
            &[
                "する",
                "します",
                "しない",
                "しません",
                "した",
                "しました",
                "しなかった",
                "して",
                "できる",
                "される",
                "させる",
                "しよう",
                "しろ",
                "すれば",
            ],
        ),
        Class::Kuru => {
            // 来る keeps its kanji; くる changes its first kana.
            let (base, ko, ki, ku) = if word.ends_with("来る") {
                (stem(1), "", "", "")
            } else {
                (stem(2), "こ", "き", "く")
            };
            [
                (ku, "る"),
                (ki, "ます"),
                (ko, "ない"),
                (ki, "ません"),
                (ki, "た"),
                (ki, "ました"),
                (ko, "なかった"),
                (ki, "て"),
                (ko, "られる"),
                (ko, "られる"),
                (ko, "させる"),
                (ko, "よう"),
                (ko, "い"),
                (ku, "れば"),
            ]
            .iter()
            .map(|(kana, suffix)| format!("{base}{kana}{suffix}"))
            .collect()
        }
        Class::IAdjective => {
            let mut forms = vec![word.to_owned(), format!("{word}です")];
            forms.extend(with(
                1,
                &["くない", "かった", "くなかった", "くて", "く", "ければ"],
            ));
            forms
        }
        Class::Yoi => {
            // いい → よ…; 良い and よい keep their first character.
            let base = if word.ends_with("いい") {
                format!("{}よ", stem(2))
            } else {
                stem(1)
            };
            let mut forms = vec![word.to_owned(), format!("{word}です")];
            forms.extend(
                ["くない", "かった", "くなかった", "くて", "く", "ければ"]
                    .iter()
                    .map(|s| format!("{base}{s}")),
            );
            forms
        }
        Class::NaAdjective => [
            "だ",
            "です",
            "ではない",
            "だった",
            "ではなかった",
            "で",
            "に",
            "なら",
        ]
        .iter()
        .map(|s| format!("{word}{s}"))
        .collect(),
        Class::Copula => {
            let base = stem(1);
            COPULA_SUFFIXES
                .iter()
                .map(|s| format!("{base}{s}"))
                .collect()
        }
    }
}

/// The conjugation table of a word written `written` and read `reading`.
pub fn table(written: &str, reading: &str, class: Class) -> Conjugation {
    let names: &[&str] = match class {
        Class::IAdjective | Class::Yoi | Class::NaAdjective => &ADJECTIVE_FORMS,
        Class::Copula => &COPULA_FORMS,
        _ => &VERB_FORMS,
    };
    let forms = names
        .iter()
        .zip(
            forms_of(written, class)
                .into_iter()
                .zip(forms_of(reading, class)),
        )
        .map(|(name, (written, reading))| ConjugatedForm {
            form: (*name).to_owned(),
            written,
            reading,
        })
        .collect();
    Conjugation {
        class: class.name().to_owned(),
        forms,
    }
}

/// Verbs that end grammar patterns, with their class. A pattern's last word is looked up
/// here longest first, so `られる` wins over `れる`.
const PATTERN_VERBS: &[(&str, Class)] = &[
    ("ある", Class::Godan(Godan::Aru)),
    ("いる", Class::Ichidan { kureru: false }),
    ("おる", Class::Godan(Godan::Regular)),
    ("する", Class::Suru),
    ("くる", Class::Kuru),
    ("来る", Class::Kuru),
    ("いく", Class::Godan(Godan::Iku)),
    ("行く", Class::Godan(Godan::Iku)),
    ("おく", Class::Godan(Godan::Regular)),
    ("しまう", Class::Godan(Godan::Regular)),
    ("みる", Class::Ichidan { kureru: false }),
    ("見る", Class::Ichidan { kureru: false }),
    ("みせる", Class::Ichidan { kureru: false }),
    ("なる", Class::Godan(Godan::Regular)),
    ("やる", Class::Godan(Godan::Regular)),
    ("れる", Class::Ichidan { kureru: false }),
    ("える", Class::Ichidan { kureru: false }),
    ("見える", Class::Ichidan { kureru: false }),
    ("きこえる", Class::Ichidan { kureru: false }),
    ("欠ける", Class::Ichidan { kureru: false }),
    ("あげる", Class::Ichidan { kureru: false }),
    ("上げる", Class::Ichidan { kureru: false }),
    ("かかわる", Class::Godan(Godan::Regular)),
    ("おわる", Class::Godan(Godan::Regular)),
    ("返す", Class::Godan(Godan::Regular)),
    ("尽くす", Class::Godan(Godan::Regular)),
    ("だす", Class::Godan(Godan::Regular)),
    ("いたす", Class::Godan(Godan::Regular)),
    ("富む", Class::Godan(Godan::Regular)),
    ("限る", Class::Godan(Godan::Regular)),
    ("至る", Class::Godan(Godan::Regular)),
    ("めしあがる", Class::Godan(Godan::Regular)),
    ("まいる", Class::Godan(Godan::Regular)),
    ("うかがう", Class::Godan(Godan::Regular)),
    ("願う", Class::Godan(Godan::Regular)),
    ("いう", Class::Godan(Godan::Regular)),
    ("言う", Class::Godan(Godan::Regular)),
    ("わかる", Class::Godan(Godan::Regular)),
];

/// Adjectives that end grammar patterns (an ending, so 〜づらい and 〜がたい are found).
const PATTERN_ADJECTIVES: &[&str] = &[
    "たい",
    "ほしい",
    "がたい",
    "やすい",
    "にくい",
    "づらい",
    "らしい",
    "っぽい",
    "よい",
];

/// Words ending like an inflecting word that do not inflect.
const NOT_INFLECTING: &[&str] = &[
    "いったい",
    "くらい",
    "ぐらい",
    "まい",
    "甚だ",
    "はなはだ",
    "未だ",
    "まだ",
];

/// The fixed tail of a pattern that may conjugate: the first alternative, without notes in
/// brackets, from after its last slot (`あまり〜ない` → `ない`); `None` when the pattern
/// ends in a slot.
fn pattern_tail(pattern: &str) -> Option<String> {
    let mut text = String::new();
    let mut depth = 0;
    for c in pattern.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth -= 1,
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    let first = text.split(['／', '/']).next()?.trim();
    let tail = first.rsplit(['〜', '～']).next()?.trim();
    (!tail.is_empty() && !first.ends_with(['〜', '～'])).then(|| tail.to_owned())
}

/// The forms of a grammar point's pattern when its last word inflects: plain, polite,
/// negative, past and te form for verbs; plain, negative, past and te form for adjectives;
/// だ, です, ではない, だった for the copula; ます and です endings their past and
/// negative. `None` when the pattern ends in a particle, a noun, an adverb or a slot.
pub fn pattern_forms(pattern: &str) -> Option<Vec<String>> {
    let tail = pattern_tail(pattern)?;
    // A slot named in English (`i-adjective + です`) is no word to inflect by rule.
    if NOT_INFLECTING.iter().any(|word| tail == *word)
        || tail.chars().any(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    let pick = |class: Class, names: &[&str]| -> Vec<String> {
        let table = table(&tail, &tail, class);
        names
            .iter()
            .filter_map(|name| table.forms.iter().find(|f| f.form == *name))
            .map(|f| f.written.clone())
            .collect()
    };
    if let Some(base) = tail.strip_suffix("ます") {
        return Some(vec![
            tail.clone(),
            format!("{base}ました"),
            format!("{base}ません"),
        ]);
    }
    if let Some(base) = tail.strip_suffix("です") {
        // An adjective before です conjugates itself: いいです → よかったです.
        if let Some(forms) = base.ends_with('い').then(|| pattern_forms(base)).flatten() {
            return Some(forms.iter().take(3).map(|f| format!("{f}です")).collect());
        }
        return Some(vec![
            tail.clone(),
            format!("{base}でした"),
            format!("{base}ではありません"),
        ]);
    }
    if let Some(base) = tail.strip_suffix("である") {
        return Some(vec![
            tail.clone(),
            format!("{base}であります"),
            format!("{base}ではない"),
            format!("{base}であった"),
        ]);
    }
    if let Some(base) = tail.strip_suffix("ない") {
        return Some(vec![
            tail.clone(),
            polite_negative(base),
            format!("{base}なかった"),
            format!("{base}なくて"),
        ]);
    }
    // だ alone negates (ではない); after a noun of the pattern (ものだ, がちだ, ようだ) the
    // negative is another construction (たくないものだ), so it is not made by rule.
    if tail == "だ" {
        return Some(pick(
            Class::Copula,
            &["dictionary", "polite", "negative", "past"],
        ));
    }
    if tail.ends_with('だ') {
        return Some(pick(Class::Copula, &["dictionary", "polite", "past"]));
    }
    // The negative of a pattern ending in いい is another pattern (〜とよくない is "it is
    // bad if", not the negative of the wish 〜といい), so only its own forms are made.
    if tail.ends_with("いい") {
        return Some(pick(Class::Yoi, &["dictionary", "past"]));
    }
    if PATTERN_ADJECTIVES.iter().any(|a| tail.ends_with(a)) {
        return Some(pick(
            Class::IAdjective,
            &["dictionary", "negative", "past", "te"],
        ));
    }
    let verb = PATTERN_VERBS
        .iter()
        .filter(|(word, _)| tail.ends_with(word))
        .max_by_key(|(word, _)| word.chars().count())?;
    Some(pick(
        verb.1,
        &["dictionary", "polite", "negative", "past", "te"],
    ))
}

/// The polite negative of a pattern ending in ない, from what comes before it: a
/// particle or adverbial form takes ありません (ではない → ではありません), a godan verb
/// its i-row stem (構わない → 構いません), a slot or an ichidan stem ません.
fn polite_negative(base: &str) -> String {
    let Some(last) = base.chars().last() else {
        return String::from("ません");
    };
    // ほか and しか are a noun and a particle, not a godan verb's negative stem (ほかない
    // is ほかありません, not ほきません).
    if matches!(last, 'で' | 'く' | 'も' | 'は' | 'が' | 'に' | 'ゃ')
        || ["ほか", "しか"].iter().any(|word| base.ends_with(word))
    {
        return format!("{base}ありません");
    }
    let godan_i = "うくぐすつぬぶむる"
        .chars()
        .filter_map(row)
        .find(|[a, ..]| *a == last)
        .map(|[_, i, ..]| i);
    match godan_i {
        Some(i) => format!("{}{i}ません", drop_last(base, 1)),
        None => format!("{base}ません"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(word: &str, reading: &str, pos: &str) -> Vec<(String, String, String)> {
        let class = Class::from_jmdict(pos, reading).expect("a conjugating class");
        table(word, reading, class)
            .forms
            .into_iter()
            .map(|f| (f.form, f.written, f.reading))
            .collect()
    }

    fn form(word: &str, reading: &str, pos: &str, name: &str) -> (String, String) {
        let forms = written(word, reading, pos);
        let (_, w, r) = forms
            .into_iter()
            .find(|(n, ..)| n == name)
            .unwrap_or_else(|| panic!("{word} has no {name}"));
        (w, r)
    }

    /// The table checked by hand against a textbook grammar table (Genki I/II appendix,
    /// Tae Kim's conjugation charts): word, reading, JMdict code, form, written, reading.
    const HAND_CHECKED: &[(&str, &str, &str, &str, &str, &str)] = &[
        ("食べる", "たべる", "v1", "negative", "食べない", "たべない"),
        (
            "食べる",
            "たべる",
            "v1",
            "polite-past",
            "食べました",
            "たべました",
        ),
        ("食べる", "たべる", "v1", "te", "食べて", "たべて"),
        (
            "食べる",
            "たべる",
            "v1",
            "potential",
            "食べられる",
            "たべられる",
        ),
        (
            "食べる",
            "たべる",
            "v1",
            "volitional",
            "食べよう",
            "たべよう",
        ),
        ("食べる", "たべる", "v1", "imperative", "食べろ", "たべろ"),
        (
            "食べる",
            "たべる",
            "v1",
            "conditional",
            "食べれば",
            "たべれば",
        ),
        ("見る", "みる", "v1", "causative", "見させる", "みさせる"),
        ("くれる", "くれる", "v1-s", "imperative", "くれ", "くれ"),
        ("書く", "かく", "v5k", "te", "書いて", "かいて"),
        ("書く", "かく", "v5k", "negative", "書かない", "かかない"),
        ("書く", "かく", "v5k", "polite", "書きます", "かきます"),
        ("書く", "かく", "v5k", "potential", "書ける", "かける"),
        ("書く", "かく", "v5k", "volitional", "書こう", "かこう"),
        ("泳ぐ", "およぐ", "v5g", "past", "泳いだ", "およいだ"),
        ("話す", "はなす", "v5s", "te", "話して", "はなして"),
        ("待つ", "まつ", "v5t", "te", "待って", "まって"),
        ("待つ", "まつ", "v5t", "polite", "待ちます", "まちます"),
        ("死ぬ", "しぬ", "v5n", "past", "死んだ", "しんだ"),
        ("遊ぶ", "あそぶ", "v5b", "te", "遊んで", "あそんで"),
        ("読む", "よむ", "v5m", "past", "読んだ", "よんだ"),
        ("読む", "よむ", "v5m", "passive", "読まれる", "よまれる"),
        ("帰る", "かえる", "v5r", "te", "帰って", "かえって"),
        ("帰る", "かえる", "v5r", "imperative", "帰れ", "かえれ"),
        ("買う", "かう", "v5u", "negative", "買わない", "かわない"),
        ("買う", "かう", "v5u", "causative", "買わせる", "かわせる"),
        ("買う", "かう", "v5u", "te", "買って", "かって"),
        ("行く", "いく", "v5k-s", "te", "行って", "いって"),
        ("行く", "いく", "v5k-s", "past", "行った", "いった"),
        ("ある", "ある", "v5r-i", "negative", "ない", "ない"),
        (
            "ある",
            "ある",
            "v5r-i",
            "negative-past",
            "なかった",
            "なかった",
        ),
        ("ある", "ある", "v5r-i", "polite", "あります", "あります"),
        ("問う", "とう", "v5u-s", "te", "問うて", "とうて"),
        (
            "くださる",
            "くださる",
            "v5aru",
            "polite",
            "くださいます",
            "くださいます",
        ),
        (
            "くださる",
            "くださる",
            "v5aru",
            "imperative",
            "ください",
            "ください",
        ),
        ("する", "する", "vs-i", "potential", "できる", "できる"),
        ("する", "する", "vs-i", "negative", "しない", "しない"),
        ("する", "する", "vs-i", "imperative", "しろ", "しろ"),
        ("来る", "くる", "vk", "negative", "来ない", "こない"),
        ("来る", "くる", "vk", "polite", "来ます", "きます"),
        ("来る", "くる", "vk", "te", "来て", "きて"),
        ("来る", "くる", "vk", "imperative", "来い", "こい"),
        ("来る", "くる", "vk", "conditional", "来れば", "くれば"),
        ("来る", "くる", "vk", "volitional", "来よう", "こよう"),
        (
            "高い",
            "たかい",
            "adj-i",
            "negative",
            "高くない",
            "たかくない",
        ),
        ("高い", "たかい", "adj-i", "past", "高かった", "たかかった"),
        (
            "高い",
            "たかい",
            "adj-i",
            "negative-past",
            "高くなかった",
            "たかくなかった",
        ),
        ("高い", "たかい", "adj-i", "te", "高くて", "たかくて"),
        ("高い", "たかい", "adj-i", "adverbial", "高く", "たかく"),
        (
            "高い",
            "たかい",
            "adj-i",
            "conditional",
            "高ければ",
            "たかければ",
        ),
        ("いい", "いい", "adj-ix", "past", "よかった", "よかった"),
        ("いい", "いい", "adj-ix", "negative", "よくない", "よくない"),
        ("良い", "いい", "adj-ix", "te", "良くて", "よくて"),
        (
            "かっこいい",
            "かっこいい",
            "adj-ix",
            "past",
            "かっこよかった",
            "かっこよかった",
        ),
        (
            "静か",
            "しずか",
            "adj-na",
            "dictionary",
            "静かだ",
            "しずかだ",
        ),
        (
            "静か",
            "しずか",
            "adj-na",
            "negative",
            "静かではない",
            "しずかではない",
        ),
        (
            "静か",
            "しずか",
            "adj-na",
            "past",
            "静かだった",
            "しずかだった",
        ),
        (
            "静か",
            "しずか",
            "adj-na",
            "adverbial",
            "静かに",
            "しずかに",
        ),
    ];

    #[test]
    fn tables_agree_with_the_hand_checked_forms() {
        for (word, reading, pos, name, want_written, want_reading) in HAND_CHECKED {
            assert_eq!(
                form(word, reading, pos, name),
                (want_written.to_string(), want_reading.to_string()),
                "{word} {name}"
            );
        }
    }

    #[test]
    fn a_verb_table_lists_every_form_once() {
        let forms = written("書く", "かく", "v5k");
        let names: Vec<&str> = forms.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(names, VERB_FORMS);
    }

    #[test]
    fn a_code_that_does_not_fit_the_ending_gives_no_class() {
        assert_eq!(Class::from_jmdict("v5k", "たべる"), None);
        assert_eq!(Class::from_jmdict("adj-i", "しずか"), None);
        assert_eq!(Class::from_jmdict("n", "ほん"), None);
    }

    #[test]
    fn patterns_ending_in_an_inflecting_word_conjugate() {
        let cases: &[(&str, &[&str])] = &[
            (
                "〜ている",
                &["ている", "ています", "ていない", "ていた", "ていて"],
            ),
            (
                "〜おそれがある",
                &[
                    "おそれがある",
                    "おそれがあります",
                    "おそれがない",
                    "おそれがあった",
                    "おそれがあって",
                ],
            ),
            (
                "〜ても構わない",
                &[
                    "ても構わない",
                    "ても構いません",
                    "ても構わなかった",
                    "ても構わなくて",
                ],
            ),
            (
                "〜べきではない",
                &[
                    "べきではない",
                    "べきではありません",
                    "べきではなかった",
                    "べきではなくて",
                ],
            ),
            ("あまり〜ない", &["ない", "ません", "なかった", "なくて"]),
            (
                "〜ほかない",
                &["ほかない", "ほかありません", "ほかなかった", "ほかなくて"],
            ),
            ("〜一方だ", &["一方だ", "一方です", "一方だった"]),
            (
                "〜てほしい",
                &["てほしい", "てほしくない", "てほしかった", "てほしくて"],
            ),
            ("〜てもいいです", &["てもいいです", "てもよかったです"]),
            (
                "ございます",
                &["ございます", "ございました", "ございません"],
            ),
            (
                "〜ていく",
                &["ていく", "ていきます", "ていかない", "ていった", "ていって"],
            ),
            (
                "〜てくる",
                &["てくる", "てきます", "てこない", "てきた", "てきて"],
            ),
            (
                "〜させられる",
                &[
                    "させられる",
                    "させられます",
                    "させられない",
                    "させられた",
                    "させられて",
                ],
            ),
            (
                "〜そうです",
                &["そうです", "そうでした", "そうではありません"],
            ),
            (
                "〜ためである",
                &[
                    "ためである",
                    "ためであります",
                    "ためではない",
                    "ためであった",
                ],
            ),
            (
                "〜という",
                &["という", "といいます", "といわない", "といった", "といって"],
            ),
        ];
        for (pattern, want) in cases {
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(pattern_forms(pattern), Some(want), "{pattern}");
        }
    }

    #[test]
    fn particles_adverbs_nouns_and_slots_do_not_conjugate() {
        for pattern in [
            "〜てから",
            "〜くらい",
            "いったい",
            "〜まで",
            "いかなる〜",
            "〜ば/〜れば",
            "〜ので",
            "〜にとって",
            "〜ずに",
            "〜まい",
            "たちまち",
            "甚だ",
            "i-adjective + です",
        ] {
            assert_eq!(pattern_forms(pattern), None, "{pattern}");
        }
    }
}
