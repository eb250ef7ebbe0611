//! JSON handling for model output: a strict parser (duplicate keys, depth,
//! number range) and the extraction of a JSON value from free text.

mod extract;
mod parse;

pub use extract::{ExtractedFrom, Extraction, ExtractionError, ExtractionMode, extract};
pub use parse::{MAX_DEPTH_CEILING, ParseError, ParseLimits, parse_strict};
