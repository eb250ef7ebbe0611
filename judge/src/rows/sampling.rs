//! [`Sampling`]: how a run's answers were sampled — the temperature, top_p
//! and seed sent, or none (the server's default) — and which of them the
//! model refused (left out: its default was used). Written on every row of
//! a live or replayed run, shown by every report, compared by `compare`.

use serde::{Deserialize, Serialize};
use std::fmt;
use tribunal_runtime::internal::backend::{BackendSettings, SamplingField};

/// The sampling settings a run sent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sampling {
    /// The temperature asked for (absent: the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The top_p asked for (absent: the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// The seed asked for (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    /// The fields the model refused, left out of its requests (`temperature`,
    /// `top_p`, `seed`); written only when there are some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
}

impl Sampling {
    /// The sampling `settings` ask for, with the fields the model `refused`.
    pub fn of(settings: &BackendSettings, refused: &[SamplingField]) -> Sampling {
        let mut sampling = Sampling {
            temperature: settings.temperature,
            top_p: settings.top_p,
            seed: settings.seed,
            refused: Vec::new(),
        };
        sampling.set_refused(refused);
        sampling
    }

    /// Says which fields the model refused (known once a run has asked).
    pub fn set_refused(&mut self, refused: &[SamplingField]) {
        self.refused = refused.iter().map(|f| f.as_str().to_string()).collect();
    }

    /// The fields sent, each `(name, value)`, in a fixed order; a refused
    /// one is not sent.
    fn sent(&self) -> Vec<(&'static str, String)> {
        let value = [
            ("temperature", self.temperature.map(|t| t.to_string())),
            ("top_p", self.top_p.map(|p| p.to_string())),
            ("seed", self.seed.map(|s| s.to_string())),
        ];
        value
            .into_iter()
            .filter(|(name, _)| !self.refused.iter().any(|r| r == name))
            .filter_map(|(name, v)| v.map(|v| (name, v)))
            .collect()
    }
}

impl fmt::Display for Sampling {
    /// `temperature 0, seed 7`; `the server's default` when nothing was
    /// sent; a refused field said after: `… (temperature refused by the
    /// model: its default used)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sent = self.sent();
        if sent.is_empty() {
            f.write_str("the server's default")?;
        } else {
            let parts: Vec<String> = sent.iter().map(|(n, v)| format!("{n} {v}")).collect();
            f.write_str(&parts.join(", "))?;
        }
        if !self.refused.is_empty() {
            write!(
                f,
                " ({} refused by the model: its default used)",
                self.refused.join(", ")
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_was_sent_or_that_the_server_chose() {
        let none = Sampling::default();
        assert_eq!(none.to_string(), "the server's default");
        let settings = BackendSettings {
            temperature: Some(0.0),
            seed: Some(7),
            ..BackendSettings::default()
        };
        assert_eq!(
            Sampling::of(&settings, &[]).to_string(),
            "temperature 0, seed 7"
        );
        assert_eq!(
            Sampling::of(&settings, &[SamplingField::Temperature]).to_string(),
            "seed 7 (temperature refused by the model: its default used)"
        );
        let only_refused = BackendSettings {
            temperature: Some(0.0),
            ..BackendSettings::default()
        };
        assert_eq!(
            Sampling::of(&only_refused, &[SamplingField::Temperature]).to_string(),
            "the server's default (temperature refused by the model: its default used)"
        );
    }

    #[test]
    fn rows_write_only_what_was_set() {
        let settings = BackendSettings {
            temperature: Some(0.0),
            ..BackendSettings::default()
        };
        assert_eq!(
            serde_json::to_string(&Sampling::of(&settings, &[])).ok(),
            Some(r#"{"temperature":0.0}"#.to_string())
        );
        assert_eq!(
            serde_json::to_string(&Sampling::default()).ok(),
            Some("{}".to_string())
        );
    }
}
