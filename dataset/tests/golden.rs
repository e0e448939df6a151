//! Golden entries of the committed artifact (`data/manabi-dataset.jsonl.zst`), chosen as a
//! Japanese teacher checks a textbook: the words and kanji of the first lessons at the level
//! where learners meet them, name-only kanji without a JLPT level, kana with their Hepburn
//! romaji, and radicals with their variants. They read the artifact CI ships, so they need
//! no upstream sources and never skip.

use std::sync::OnceLock;

use manabi_artifact::Artifact;
use manabi_schemas::{Learnable, LearnableBody, LearnableType};

fn artifact() -> &'static Artifact {
    static ARTIFACT: OnceLock<Artifact> = OnceLock::new();
    ARTIFACT.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/manabi-dataset.jsonl.zst");
        Artifact::load(&path).expect("the committed artifact loads")
    })
}

fn document(id: &str) -> Learnable {
    let loaded = artifact()
        .learnables
        .iter()
        .find(|l| l.summary.id == id)
        .unwrap_or_else(|| panic!("{id} is in the artifact"));
    serde_json::from_str(&loaded.json).expect("the document parses")
}

/// The vocabulary entries written `written` and read `kana`.
fn words(written: &str, kana: &str) -> Vec<Learnable> {
    artifact()
        .learnables
        .iter()
        .filter(|l| l.summary.kind == LearnableType::Vocabulary)
        .filter(|l| {
            let forms = &l.summary.writing_forms;
            forms.iter().any(|f| f.text == written) && forms.iter().any(|f| f.text == kana)
        })
        .map(|l| serde_json::from_str(&l.json).expect("the document parses"))
        .collect()
}

/// Word, reading, JLPT level, and the JMdict entry when a test elsewhere relies on its id.
const WORDS: [(&str, &str, u8, Option<&str>); 36] = [
    ("食べる", "たべる", 5, Some("vocab-1358280")),
    ("飲む", "のむ", 5, Some("vocab-1169870")),
    ("学校", "がっこう", 5, Some("vocab-1206730")),
    ("分", "ふん", 5, Some("vocab-1502840")),
    ("私", "わたし", 5, Some("vocab-1311110")),
    ("父", "ちち", 5, Some("vocab-1497610")),
    ("母", "はは", 5, Some("vocab-1514990")),
    ("日本語", "にほんご", 5, None),
    ("日本", "にほん", 5, None),
    ("日本人", "にほんじん", 5, None),
    ("英語", "えいご", 5, None),
    ("東京", "とうきょう", 5, None),
    ("大阪", "おおさか", 5, None),
    ("京都", "きょうと", 5, None),
    ("円", "えん", 5, None),
    ("時", "じ", 5, None),
    ("歳", "さい", 5, None),
    ("週末", "しゅうまつ", 5, None),
    ("先生", "せんせい", 5, None),
    ("友達", "ともだち", 5, None),
    ("今日", "きょう", 5, None),
    ("見る", "みる", 5, None),
    ("行く", "いく", 5, None),
    ("来る", "くる", 5, None),
    ("大きい", "おおきい", 5, None),
    ("勉強", "べんきょう", 5, None),
    ("ありがとう", "ありがとう", 5, None),
    ("コーヒー", "コーヒー", 5, None),
    ("お祖父さん", "おじいさん", 5, None),
    ("説明", "せつめい", 4, None),
    ("経済", "けいざい", 4, None),
    ("途中", "とちゅう", 4, None),
    ("北海道", "ほっかいどう", 4, None),
    ("環境", "かんきょう", 3, None),
    ("賛成", "さんせい", 3, None),
    ("犠牲", "ぎせい", 1, None),
];

#[test]
fn first_year_words_are_present_at_their_level() {
    for (written, kana, level, id) in WORDS {
        let found = words(written, kana);
        assert_eq!(found.len(), 1, "{written} {kana}: one entry");
        let word = &found[0];
        assert_eq!(word.jlpt_level, Some(level), "{written} {kana}");
        if let Some(id) = id {
            assert_eq!(word.id, id, "{written} {kana}");
        }
    }
}

/// First-year words no JLPT list grades: present without a level, with their corpus rank.
const UNGRADED_WORDS: [(&str, &str); 7] = [
    ("寿司", "すし"),
    ("本屋", "ほんや"),
    ("頑張る", "がんばる"),
    ("ラーメン", "ラーメン"),
    ("コンビニ", "コンビニ"),
    ("ただいま", "ただいま"),
    ("おやすみなさい", "おやすみなさい"),
];

#[test]
fn first_year_words_no_list_grades_are_present_without_a_level() {
    for (written, kana) in UNGRADED_WORDS {
        let found = words(written, kana);
        assert_eq!(found.len(), 1, "{written} {kana}: one entry");
        let word = &found[0];
        assert_eq!(word.jlpt_level, None, "{written} {kana}");
        assert!(word.tags.iter().any(|t| t == "beginner-core"), "{written}");
        let LearnableBody::Vocabulary(detail) = &word.body else {
            panic!("{written}: vocabulary body")
        };
        assert!(detail.frequency_rank.is_some(), "{written}: ranked");
        assert!(word.sources.iter().any(|c| c.source == "wordfreq"));
    }
}

/// Frequent words of today's Japanese outside every JLPT list, ranked and tagged.
#[test]
fn frequent_words_outside_the_lists_are_entries_with_their_rank() {
    for (written, kana) in [("動画", "どうが"), ("画像", "がぞう"), ("検索", "けんさく")]
    {
        let found = words(written, kana);
        assert_eq!(found.len(), 1, "{written} {kana}: one entry");
        let word = &found[0];
        assert_eq!(word.jlpt_level, None, "{written}");
        assert!(word.tags.iter().any(|t| t == "frequent-word"), "{written}");
        let LearnableBody::Vocabulary(detail) = &word.body else {
            panic!("{written}: vocabulary body")
        };
        let rank = detail.frequency_rank.expect("ranked");
        assert!(rank <= 5_000, "{written}: rank {rank}");
    }
    let me = &words("私", "わたし")[0];
    let LearnableBody::Vocabulary(detail) = &me.body else {
        panic!("vocabulary body")
    };
    assert!(detail.frequency_rank.is_some_and(|rank| rank < 100));
}

#[test]
fn taberu_reads_and_means_what_a_learner_expects() {
    let eat = document("vocab-1358280");
    assert_eq!(eat.label.as_deref(), Some("食べる"));
    assert_eq!(eat.is_common_word, Some(true));
    assert_eq!(
        eat.meaning.as_deref().map(|m| m.starts_with("to eat")),
        Some(true)
    );
    let LearnableBody::Vocabulary(detail) = &eat.body else {
        panic!("vocabulary body")
    };
    assert_eq!(detail.readings[0].text, "たべる");
    assert_eq!(detail.readings[0].romaji, "taberu");
}

#[test]
fn a_list_row_never_becomes_a_different_word() {
    // The row 父 ちち does not exist in the lists; 乳 ちち (milk) is its own N1 word.
    let milk = document("vocab-1464980");
    assert_eq!(milk.label.as_deref(), Some("乳"));
    assert_ne!(milk.jlpt_level, Some(5));
    // The row 天 あまつ once became 天津 and carried sentences about 天才 and 天気.
    assert!(words("天津", "あまつ").is_empty());
}

#[test]
fn the_levels_of_the_lists_are_kept_where_the_editors_overrule_them() {
    let minute = &words("分", "ふん")[0];
    let check = minute
        .cross_checks
        .iter()
        .find(|c| c.field == "jlpt_level")
        .expect("the lists and the editors both grade 分");
    assert!(!check.agree, "the lists say N1, the editors N5");
    assert!(check.sources.iter().any(|s| s == "manabi"));
    assert!(minute.tags.iter().any(|t| t == "beginner-core"));
}

/// Kanji, JLPT level (`None`: not a JLPT kanji), and the tag that says why when none.
const KANJI: [(&str, Option<u8>, Option<&str>); 16] = [
    ("kanji-65e5", Some(5), None),                     // 日
    ("kanji-4e00", Some(5), None),                     // 一
    ("kanji-5206", Some(5), None),                     // 分, missing from the tanos lists
    ("kanji-5b66", Some(5), None),                     // 学
    ("kanji-8a9e", Some(5), None),                     // 語
    ("kanji-6c34", Some(5), None),                     // 水
    ("kanji-98df", Some(5), None),                     // 食
    ("kanji-79c1", Some(4), None),                     // 私
    ("kanji-7684", Some(3), None),                     // 的
    ("kanji-8eab", Some(3), None),                     // 身
    ("kanji-7121", Some(3), None),                     // 無
    ("kanji-51ea", None, Some("jlpt-none-jinmeiyo")),  // 凪
    ("kanji-67ca", None, Some("jlpt-none-jinmeiyo")),  // 柊
    ("kanji-98af", None, Some("jlpt-none-jinmeiyo")),  // 颯
    ("kanji-8ab0", None, Some("jlpt-none-joyo-2010")), // 誰
    ("kanji-9b31", None, Some("jlpt-none-joyo-2010")), // 鬱
];

#[test]
fn kanji_are_graded_by_the_documented_rule() {
    for (id, level, reason) in KANJI {
        let kanji = document(id);
        assert_eq!(kanji.jlpt_level, level, "{id}");
        if let Some(reason) = reason {
            assert!(kanji.tags.iter().any(|t| t == reason), "{id}: {reason}");
        }
        let LearnableBody::Kanji(detail) = &kanji.body else {
            panic!("{id}: kanji body")
        };
        let list = detail.list.as_deref();
        let expected_list = if reason == Some("jlpt-none-jinmeiyo") {
            "jinmeiyo"
        } else {
            "joyo"
        };
        assert_eq!(list, Some(expected_list), "{id}");
    }
}

#[test]
fn a_basic_kanji_carries_its_readings() {
    let day = document("kanji-65e5");
    let LearnableBody::Kanji(detail) = &day.body else {
        panic!("kanji body")
    };
    assert!(detail.readings.on.iter().any(|r| r == "ニチ"));
    assert!(detail.readings.kun.iter().any(|r| r == "ひ"));
    assert_eq!(detail.stroke_count, Some(4));
    assert_eq!(detail.grade, Some(1));
}

/// Kana id, the character, its romaji.
const KANA: [(&str, &str, &str); 10] = [
    ("kana-3042", "あ", "a"),
    ("kana-30a2", "ア", "a"),
    ("kana-3057", "し", "shi"),
    ("kana-3064", "つ", "tsu"),
    ("kana-3075", "ふ", "fu"),
    ("kana-3093", "ん", "n"),
    ("kana-3092", "を", "o"),
    ("kana-30b7", "シ", "shi"),
    ("kana-304d-3083", "きゃ", "kya"),
    ("kana-3057-3083", "しゃ", "sha"),
];

#[test]
fn kana_have_hepburn_romaji() {
    for (id, text, romaji) in KANA {
        let kana = document(id);
        assert_eq!(kana.label.as_deref(), Some(text), "{id}");
        let LearnableBody::Character(detail) = &kana.body else {
            panic!("{id}: character body")
        };
        assert_eq!(detail.romaji, romaji, "{id}");
    }
}

/// Radical id, its character, one variant form (if it has one), stroke count.
const RADICALS: [(&str, &str, Option<&str>, u8); 6] = [
    ("radical-001", "一", None, 1),
    ("radical-009", "人", Some("亻"), 2),
    ("radical-030", "口", None, 3),
    ("radical-061", "心", Some("忄"), 4),
    ("radical-085", "水", Some("氵"), 4),
    ("radical-140", "艸", Some("艹"), 6),
];

#[test]
fn radicals_have_their_variants_and_strokes() {
    for (id, character, variant, strokes) in RADICALS {
        let radical = document(id);
        let LearnableBody::Radical(detail) = &radical.body else {
            panic!("{id}: radical body")
        };
        assert_eq!(detail.character, character, "{id}");
        assert_eq!(detail.stroke_count, strokes, "{id}");
        if let Some(variant) = variant {
            assert!(
                detail.variants.iter().any(|v| v == variant),
                "{id}: {variant}"
            );
        }
    }
}
