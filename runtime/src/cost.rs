//! What tokens cost: [`ModelPrice`] (USD per million tokens) and the cost
//! budget [`CostLimit`] a run can carry in its [`Budget`](crate::Budget).

use crate::conversation::Usage;
use serde::{Deserialize, Serialize};

/// One model's prices, in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// An uncached input token.
    pub input: f64,
    /// An output token (reasoning included).
    pub output: f64,
    /// An input token read from the prompt cache (default: `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read: Option<f64>,
    /// An input token written to the prompt cache (default: `input`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
}

impl ModelPrice {
    /// Every price times `factor` (a batch API's discount, e.g. 0.5).
    pub fn scaled(self, factor: f64) -> ModelPrice {
        ModelPrice {
            input: self.input * factor,
            output: self.output * factor,
            cache_read: self.cache_read.map(|p| p * factor),
            cache_write: self.cache_write.map(|p| p * factor),
        }
    }

    /// Nothing costs anything (a local server).
    pub const FREE: ModelPrice = ModelPrice {
        input: 0.0,
        output: 0.0,
        cache_read: None,
        cache_write: None,
    };

    /// The cost of `usage`, in USD.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per = |tokens: u64, price: f64| tokens as f64 * price;
        (per(usage.uncached_input_tokens(), self.input)
            + per(
                usage.cache_read_tokens,
                self.cache_read.unwrap_or(self.input),
            )
            + per(
                usage.cache_write_tokens,
                self.cache_write.unwrap_or(self.input),
            )
            + per(usage.output_tokens, self.output))
            / 1_000_000.0
    }

    /// Why these prices cannot be used (a negative or non-finite one).
    pub fn problem(&self) -> Option<&'static str> {
        [
            Some(self.input),
            Some(self.output),
            self.cache_read,
            self.cache_write,
        ]
        .into_iter()
        .flatten()
        .any(|p| !p.is_finite() || p < 0.0)
        .then_some("prices must be finite and not negative")
    }
}

/// A run's cost budget: at most `max_usd` spent at `price`. Checked like
/// `max_tokens`: after each response, before the next request; going over
/// ends the run with `max_cost_exceeded`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CostLimit {
    /// The most the run may spend, in USD.
    pub max_usd: f64,
    /// The prices of the run's model.
    pub price: ModelPrice,
}
