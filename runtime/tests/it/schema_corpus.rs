//! The real-world schema survey: every JSON Schema file of a folder compiled
//! for each target, counted by outcome and by the keywords it uses.
//!
//! Not part of the normal run (the corpus is not in the repository; see
//! BENCHMARKS.md for where it comes from). Run it with
//!
//! ```sh
//! TRIBUNAL_SCHEMA_CORPUS=/path/to/schemas \
//!   cargo test -p tribunal-runtime --test it schema_corpus -- --ignored --nocapture
//! ```
//!
//! It fails when a compiled wire schema breaks the target's rules, when the
//! compiler panics, or when it refuses a schema (no figure may hide those).

use crate::schema_compile::{check_rules, json_files};
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use tribunal_runtime::OutputSchema;
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::schema::{CompiledSchema, Step, compile};

const TARGETS: [SchemaTarget; 2] = [SchemaTarget::OpenAi, SchemaTarget::Anthropic];

/// How one schema came out for one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Every part constrained by the provider.
    Native,
    /// Native, with some subtrees as JSON-encoded text.
    NativeWithText,
    /// The whole answer as one JSON-encoded string.
    WholeText,
    /// Refused with an error.
    Refused,
    /// The compiler panicked.
    Crash,
}

impl Outcome {
    fn is_native(self) -> bool {
        matches!(self, Outcome::Native | Outcome::NativeWithText)
    }
}

#[derive(Default)]
struct Tally {
    outcomes: BTreeMap<Outcome, usize>,
    /// Per keyword: schemas using it, and how many of them compiled native.
    keywords: BTreeMap<String, (usize, usize)>,
    /// Why the whole answer fell back, by the limit named (first words).
    whole_reasons: BTreeMap<String, usize>,
    /// Why subtrees travel as text, by cause (notes), counted once per schema.
    text_reasons: BTreeMap<String, usize>,
    /// Per schema with subtrees sent as text to fit a limit: how many.
    fitted: Vec<usize>,
    /// Schemas with optional properties left out of `required` to fit.
    omitted: usize,
    rule_breaks: Vec<String>,
    refusals: Vec<String>,
}

#[test]
#[ignore = "needs TRIBUNAL_SCHEMA_CORPUS (see BENCHMARKS.md)"]
fn schema_corpus() {
    let dir = std::env::var_os("TRIBUNAL_SCHEMA_CORPUS")
        .map(PathBuf::from)
        .expect("set TRIBUNAL_SCHEMA_CORPUS to a folder of JSON Schema files");
    let files = json_files(&dir);
    let mut unloadable: BTreeMap<String, usize> = BTreeMap::new();
    let mut loaded = 0usize;
    let mut tallies: Vec<Tally> = TARGETS.iter().map(|_| Tally::default()).collect();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(text) = std::fs::read_to_string(path) else {
            *unloadable.entry("not UTF-8".into()).or_default() += 1;
            continue;
        };
        let Ok(owner) = serde_json::from_str::<Value>(&text) else {
            *unloadable.entry("not JSON".into()).or_default() += 1;
            continue;
        };
        if let Err(e) = OutputSchema::new(&name, owner.clone()) {
            let why = if e.message.contains("external") || e.message.contains("resolve") {
                "a reference the offline validator cannot resolve"
            } else {
                "the validator refuses it"
            };
            *unloadable.entry(why.into()).or_default() += 1;
            continue;
        }
        loaded += 1;
        let used = keywords_used(&owner);
        for (target, tally) in TARGETS.iter().zip(tallies.iter_mut()) {
            let result = catch_unwind(AssertUnwindSafe(|| compile(&owner, *target)));
            let outcome = match &result {
                Err(_) => Outcome::Crash,
                Ok(Err(e)) => {
                    tally
                        .refusals
                        .push(format!("{name}: {} {}", e.path, e.message));
                    Outcome::Refused
                }
                Ok(Ok(c)) if c.fallback => {
                    let why = c.notes.first().map(String::as_str).unwrap_or("");
                    *tally.whole_reasons.entry(limit_named(why)).or_default() += 1;
                    Outcome::WholeText
                }
                Ok(Ok(c)) if has_text(&c.plan.root) => {
                    for cause in text_causes(c) {
                        *tally.text_reasons.entry(cause).or_default() += 1;
                    }
                    Outcome::NativeWithText
                }
                Ok(Ok(_)) => Outcome::Native,
            };
            if let Ok(Ok(c)) = &result {
                let forced = c
                    .notes
                    .iter()
                    .filter(|n| n.contains(": to fit the "))
                    .count();
                if forced > 0 {
                    tally.fitted.push(forced);
                }
                if c.notes
                    .iter()
                    .any(|n| n.ends_with("sent as optional (to fit the limits)"))
                {
                    tally.omitted += 1;
                }
                if let Err(e) = check_rules(&c.wire, *target, true) {
                    tally.rule_breaks.push(format!("{name}: {e}"));
                }
                if jsonschema::validator_for(&c.wire).is_err() {
                    tally
                        .rule_breaks
                        .push(format!("{name}: the wire is not a JSON Schema"));
                }
            }
            *tally.outcomes.entry(outcome).or_default() += 1;
            for k in &used {
                let e = tally.keywords.entry(k.clone()).or_default();
                e.0 += 1;
                if outcome.is_native() {
                    e.1 += 1;
                }
            }
        }
    }
    print_report(&files, loaded, &unloadable, &tallies);
    for (target, tally) in TARGETS.iter().zip(&tallies) {
        let t = target.as_str();
        assert!(
            tally.rule_breaks.is_empty(),
            "{t}: wire rules broken: {:#?}",
            tally.rule_breaks
        );
        assert_eq!(tally.outcomes.get(&Outcome::Crash), None, "{t}: crashes");
        assert!(
            tally.refusals.is_empty(),
            "{t}: refused: {:#?}",
            tally.refusals
        );
    }
}

fn print_report(
    files: &[PathBuf],
    loaded: usize,
    unloadable: &BTreeMap<String, usize>,
    tallies: &[Tally],
) {
    println!("\n{} files, {loaded} loaded", files.len());
    for (why, n) in unloadable {
        println!("  left out, {why}: {n}");
    }
    let pct = |n: usize| 100.0 * n as f64 / loaded.max(1) as f64;
    println!(
        "\n| target | native | of which with text parts | whole answer as text | refused | crashes | rule breaks |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (target, t) in TARGETS.iter().zip(tallies) {
        let n = |o: Outcome| t.outcomes.get(&o).copied().unwrap_or(0);
        let native = n(Outcome::Native) + n(Outcome::NativeWithText);
        println!(
            "| {} | {native} ({:.1}%) | {} | {} ({:.1}%) | {} | {} | {} |",
            target.as_str(),
            pct(native),
            n(Outcome::NativeWithText),
            n(Outcome::WholeText),
            pct(n(Outcome::WholeText)),
            n(Outcome::Refused),
            n(Outcome::Crash),
            t.rule_breaks.len()
        );
    }
    println!(
        "\n| target | schemas fitted with subtrees as text | subtrees as text (median per fitted schema) | schemas with optional properties left out of `required` |"
    );
    println!("|---|---|---|---|");
    for (target, t) in TARGETS.iter().zip(tallies) {
        let mut counts = t.fitted.clone();
        counts.sort_unstable();
        let median = counts.get(counts.len() / 2).copied().unwrap_or(0);
        println!(
            "| {} | {} | {} ({median}) | {} |",
            target.as_str(),
            counts.len(),
            counts.iter().sum::<usize>(),
            t.omitted
        );
    }
    for (target, t) in TARGETS.iter().zip(tallies) {
        println!("\n{}: whole answer as text, by limit", target.as_str());
        for (why, n) in &t.whole_reasons {
            println!("  {n:4}  {why}");
        }
        println!("{}: subtrees as text, by cause (schemas)", target.as_str());
        for (why, n) in &t.text_reasons {
            if !why.starts_with("to fit the ") {
                println!("  {n:4}  {why}");
            }
        }
    }
    println!("\n| keyword | schemas | openai native | anthropic native |");
    println!("|---|---|---|---|");
    let mut keys: Vec<&String> = tallies[0].keywords.keys().collect();
    keys.sort_by_key(|k| std::cmp::Reverse(tallies[0].keywords[*k].0));
    for k in keys {
        let (n, openai) = tallies[0].keywords[k];
        let anthropic = tallies[1].keywords.get(k).map_or(0, |e| e.1);
        let p = |x: usize| 100.0 * x as f64 / n as f64;
        println!(
            "| `{k}` | {n} | {openai} ({:.0}%) | {anthropic} ({:.0}%) |",
            p(openai),
            p(anthropic)
        );
    }
}

/// The limit a whole-answer fallback note names, without the counts.
fn limit_named(note: &str) -> String {
    let Some(start) = note.find("limits (") else {
        return note.chars().take(80).collect();
    };
    let rest = &note[start + "limits (".len()..];
    let inner = rest.split(')').next().unwrap_or(rest);
    inner
        .split(' ')
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit() || c == '('))
        .take_while(|w| *w != "(limit")
        .collect::<Vec<_>>()
        .join(" ")
}

/// The distinct causes named by a compilation's "travels as a JSON-encoded
/// string" notes.
fn text_causes(c: &CompiledSchema) -> Vec<String> {
    let mut out: Vec<String> = c
        .notes
        .iter()
        .filter(|n| n.contains("travels as a JSON-encoded string"))
        .filter_map(|n| n.split_once(": ").map(|(_, rest)| rest))
        .map(|rest| {
            rest.trim_end_matches(": travels as a JSON-encoded string")
                .to_string()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn has_text(step: &Step) -> bool {
    match step {
        Step::Json | Step::JsonOrString => true,
        Step::Keep | Step::Enum { .. } => false,
        Step::Unwrap { then, .. } => has_text(then),
        Step::Object { fields } => fields.values().any(|f| has_text(&f.then)),
        Step::Array { items } => has_text(items),
        Step::AnyOf { branches } => branches.iter().any(|b| has_text(&b.then)),
    }
}

/// The JSON Schema keywords used anywhere in `schema`, walking schema
/// positions only (property names are not keywords).
fn keywords_used(schema: &Value) -> Vec<String> {
    const SCHEMA_MAPS: [&str; 5] = [
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
    ];
    const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];
    const SCHEMA_ONE: [&str; 11] = [
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
        "items",
    ];
    let mut seen: Vec<String> = Vec::new();
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Value::Object(map) = node else { continue };
        for (k, v) in map {
            if !seen.contains(k) {
                seen.push(k.clone());
            }
            if SCHEMA_MAPS.contains(&k.as_str())
                && let Value::Object(m) = v
            {
                stack.extend(m.values());
            } else if SCHEMA_LISTS.contains(&k.as_str())
                && let Value::Array(a) = v
            {
                stack.extend(a.iter());
            } else if SCHEMA_ONE.contains(&k.as_str()) {
                match v {
                    Value::Array(a) => stack.extend(a.iter()),
                    other => stack.push(other),
                }
            }
        }
    }
    seen.retain(|k| KNOWN.contains(&k.as_str()));
    seen.sort();
    seen
}

/// The keywords reported (JSON Schema 2020-12 and draft-04..07 spellings).
const KNOWN: [&str; 48] = [
    "$ref",
    "$defs",
    "definitions",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "default",
    "examples",
    "title",
    "description",
    "deprecated",
    "readOnly",
    "unevaluatedProperties",
    "unevaluatedItems",
    "discriminator",
];
