//! [`Verdict`]: the two verdicts a review reaches, GREEN and RED — the word
//! gold labels, checks, result rows, calibration and the review judge
//! ([`crate::verdict`]) share.

use serde::{Deserialize, Serialize};

/// A review's verdict: the change passes (GREEN) or fails (RED).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// The change passes review.
    Green,
    /// The change fails review.
    Red,
}

impl Verdict {
    /// Both verdicts, GREEN first.
    pub const ALL: [Verdict; 2] = [Verdict::Green, Verdict::Red];

    /// `GREEN` or `RED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Green => "GREEN",
            Verdict::Red => "RED",
        }
    }

    /// Parses the exact spelling `GREEN` or `RED`.
    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// Parses `GREEN` or `RED` ignoring case (Anthropic does not guarantee
    /// the capitalisation of const values).
    pub fn parse_ignore_case(s: &str) -> Option<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s))
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Verdict {
    type Err = String;

    /// Parses `GREEN` or `RED` (exact spelling).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::parse(s).ok_or_else(|| format!("expected GREEN or RED, found {s:?}"))
    }
}
