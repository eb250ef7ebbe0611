//! Provider limits on wire schemas: what a schema uses ([`WireStats`]), what a
//! target allows ([`WireLimits`]), and the share of a request already spent
//! by an envelope around an embedded schema ([`WireBudget`]).

use crate::output::SchemaTarget;
use serde::Serialize;
use serde_json::Value;

/// What a wire schema uses of the limited resources. Counted by
/// [`WireStats::measure`]; combine several with [`WireStats::combine`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct WireStats {
    /// Object properties, in total.
    pub properties: usize,
    /// Levels of nesting: every object or array schema on a path counts one.
    pub depth: usize,
    /// `enum` values, in total.
    pub enum_values: usize,
    /// The largest character total of one string enum with more than 250 values.
    pub large_enum_chars: usize,
    /// Characters of property names, definition names, and string enum and const values.
    pub name_chars: usize,
    /// Properties not listed in their object's `required`.
    pub optional: usize,
    /// Union-typed schemas: `anyOf` and type arrays with two or more types.
    pub unions: usize,
}

/// Number of values above which a string enum's character total is limited.
const LARGE_ENUM: usize = 250;

impl WireStats {
    /// Counts what `wire` uses. Iterative: any input depth is safe.
    pub fn measure(wire: &Value) -> WireStats {
        let mut stats = WireStats::default();
        let mut stack: Vec<(&Value, usize)> = vec![(wire, 0)];
        while let Some((node, level)) = stack.pop() {
            let Value::Object(map) = node else { continue };
            let is_object = map.contains_key("properties") || has_type(map.get("type"), "object");
            let is_array = map.contains_key("items") || has_type(map.get("type"), "array");
            let level = if is_object || is_array {
                level + 1
            } else {
                level
            };
            stats.depth = stats.depth.max(level);
            if let Some(Value::Array(types)) = map.get("type")
                && types.len() >= 2
            {
                stats.unions += 1;
            }
            if let Some(Value::Array(branches)) = map.get("anyOf") {
                stats.unions += 1;
                stack.extend(branches.iter().map(|b| (b, level)));
            }
            if let Some(Value::Object(props)) = map.get("properties") {
                let required: Vec<&str> = match map.get("required") {
                    Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                for (name, sub) in props {
                    stats.properties += 1;
                    stats.name_chars += name.chars().count();
                    if !required.contains(&name.as_str()) {
                        stats.optional += 1;
                    }
                    stack.push((sub, level));
                }
            }
            for defs in ["$defs", "definitions"] {
                if let Some(Value::Object(d)) = map.get(defs) {
                    for (name, sub) in d {
                        stats.name_chars += name.chars().count();
                        stack.push((sub, level));
                    }
                }
            }
            if let Some(items) = map.get("items") {
                stack.push((items, level));
            }
            if let Some(Value::Array(values)) = map.get("enum") {
                stats.enum_values += values.len();
                let chars: usize = values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.chars().count())
                    .sum();
                stats.name_chars += chars;
                let strings = values.iter().filter(|v| v.is_string()).count();
                if strings > LARGE_ENUM {
                    stats.large_enum_chars = stats.large_enum_chars.max(chars);
                }
            }
            if let Some(Value::String(c)) = map.get("const") {
                stats.name_chars += c.chars().count();
            }
        }
        stats
    }

    /// The use of `self` plus `inner`, where `inner` sits `depth_offset`
    /// levels deep inside `self`'s schema.
    pub fn combine(self, inner: WireStats, depth_offset: usize) -> WireStats {
        WireStats {
            properties: self.properties + inner.properties,
            depth: self.depth.max(depth_offset + inner.depth),
            enum_values: self.enum_values + inner.enum_values,
            large_enum_chars: self.large_enum_chars.max(inner.large_enum_chars),
            name_chars: self.name_chars + inner.name_chars,
            optional: self.optional + inner.optional,
            unions: self.unions + inner.unions,
        }
    }
}

fn has_type(t: Option<&Value>, name: &str) -> bool {
    match t {
        Some(Value::String(s)) => s == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t == name),
        _ => false,
    }
}

/// The request-wide limits of one target. `None` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WireLimits {
    /// Most object properties in total (OpenAI: 5,000).
    pub max_properties: Option<usize>,
    /// Most levels of nesting (OpenAI: 10).
    pub max_depth: Option<usize>,
    /// Most enum values in total (OpenAI: 1,000).
    pub max_enum_values: Option<usize>,
    /// Most characters in one string enum of more than 250 values (OpenAI: 15,000).
    pub max_large_enum_chars: Option<usize>,
    /// Most characters of names and enum/const values (OpenAI: 120,000).
    pub max_name_chars: Option<usize>,
    /// Most optional properties (Anthropic: 24).
    pub max_optional: Option<usize>,
    /// Most union-typed schemas (Anthropic: 16).
    pub max_unions: Option<usize>,
}

impl WireLimits {
    /// The documented limits of `target` (none for [`SchemaTarget::Plain`]).
    pub fn for_target(target: SchemaTarget) -> WireLimits {
        let none = WireLimits {
            max_properties: None,
            max_depth: None,
            max_enum_values: None,
            max_large_enum_chars: None,
            max_name_chars: None,
            max_optional: None,
            max_unions: None,
        };
        match target {
            SchemaTarget::Plain => none,
            SchemaTarget::OpenAi => WireLimits {
                max_properties: Some(5_000),
                max_depth: Some(10),
                max_enum_values: Some(1_000),
                max_large_enum_chars: Some(15_000),
                max_name_chars: Some(120_000),
                ..none
            },
            SchemaTarget::Anthropic => WireLimits {
                max_optional: Some(24),
                max_unions: Some(16),
                ..none
            },
        }
    }

    /// `Err` naming the first limit `stats` exceeds.
    pub fn check(&self, stats: &WireStats) -> Result<(), String> {
        match self.first_excess(stats) {
            Some(excess) => Err(excess.to_string()),
            None => Ok(()),
        }
    }

    /// The first limit `stats` exceeds, in a fixed order, or `None`.
    pub(crate) fn first_excess(&self, stats: &WireStats) -> Option<Excess> {
        Resource::ALL.into_iter().find_map(|resource| {
            let max = resource.limit(self)?;
            let used = resource.of(stats);
            (used > max).then_some(Excess {
                resource,
                used,
                max,
            })
        })
    }
}

/// One limited resource of a wire schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resource {
    Properties,
    Depth,
    EnumValues,
    LargeEnumChars,
    NameChars,
    Optional,
    Unions,
}

impl Resource {
    const ALL: [Resource; 7] = [
        Resource::Properties,
        Resource::Depth,
        Resource::EnumValues,
        Resource::LargeEnumChars,
        Resource::NameChars,
        Resource::Optional,
        Resource::Unions,
    ];

    /// What `stats` uses of this resource.
    pub(crate) fn of(self, stats: &WireStats) -> usize {
        match self {
            Resource::Properties => stats.properties,
            Resource::Depth => stats.depth,
            Resource::EnumValues => stats.enum_values,
            Resource::LargeEnumChars => stats.large_enum_chars,
            Resource::NameChars => stats.name_chars,
            Resource::Optional => stats.optional,
            Resource::Unions => stats.unions,
        }
    }

    fn limit(self, limits: &WireLimits) -> Option<usize> {
        match self {
            Resource::Properties => limits.max_properties,
            Resource::Depth => limits.max_depth,
            Resource::EnumValues => limits.max_enum_values,
            Resource::LargeEnumChars => limits.max_large_enum_chars,
            Resource::NameChars => limits.max_name_chars,
            Resource::Optional => limits.max_optional,
            Resource::Unions => limits.max_unions,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Resource::Properties => "object properties",
            Resource::Depth => "levels of nesting",
            Resource::EnumValues => "enum values",
            Resource::LargeEnumChars => "characters in one large string enum",
            Resource::NameChars => "characters of names and enum values",
            Resource::Optional => "optional properties",
            Resource::Unions => "union-typed properties",
        }
    }
}

/// A limit a wire schema exceeds: what, how much is used, the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Excess {
    pub(crate) resource: Resource,
    pub(crate) used: usize,
    pub(crate) max: usize,
}

impl std::fmt::Display for Excess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} (limit {})",
            self.used,
            self.resource.what(),
            self.max
        )
    }
}

/// What the rest of a request already uses around an embedded schema (see
/// [`compile_embedded_in`](super::compile_embedded_in)).
///
/// For the verdict envelope, `used` is the envelope without its owner fields
/// (measured with [`WireStats::measure`]) plus every owner field compiled
/// before this one, and `depth` is the nesting level at which the field sits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WireBudget {
    /// What is already used elsewhere in the request.
    pub used: WireStats,
    /// Levels of nesting above the embedded field.
    pub depth: usize,
}
