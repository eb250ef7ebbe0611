//! [`Environment`]: the process variables a run reads (API keys, base URLs,
//! the variables `[[mcp]]` servers are given), read once at the edge — the
//! CLI's `main`, an embedder's set-up, a test's map — and passed down, so
//! nothing below it reads the process environment behind its caller's back.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::sync::Arc;

/// A snapshot of environment variables.
///
/// Its `Debug` lists the names only: the values are API keys and tokens.
///
/// ```
/// # use tribunal_judge::Environment;
/// let env = Environment::from_iter([("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")]);
/// assert_eq!(env.var("OPENAI_BASE_URL").as_deref(), Some("http://127.0.0.1:8080/v1"));
/// assert_eq!(env.var("OPENAI_API_KEY"), None);
/// ```
#[derive(Clone, Default)]
pub struct Environment {
    vars: Arc<BTreeMap<OsString, OsString>>,
}

impl Environment {
    /// The process's variables, as they are now.
    pub fn of_process() -> Self {
        Environment::from_iter(std::env::vars_os())
    }

    /// No variables: every key and base URL must come from elsewhere.
    pub fn empty() -> Self {
        Environment::default()
    }

    /// The variable `name` as text; `None` when unset or not Unicode.
    pub fn var(&self, name: &str) -> Option<String> {
        self.var_os(name)?.into_string().ok()
    }

    /// The variable `name` as the process holds it.
    pub fn var_os(&self, name: &str) -> Option<OsString> {
        self.vars.get(OsStr::new(name)).cloned()
    }
}

impl<K: Into<OsString>, V: Into<OsString>> FromIterator<(K, V)> for Environment {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let vars = iter
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        Environment {
            vars: Arc::new(vars),
        }
    }
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.vars.keys().map(|k| k.to_string_lossy()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Environment;

    #[test]
    fn debug_names_the_variables_and_never_their_values() {
        let env = Environment::from_iter([("OPENAI_API_KEY", "sk-secret")]);
        let shown = format!("{env:?}");
        assert!(shown.contains("OPENAI_API_KEY"), "{shown}");
        assert!(!shown.contains("sk-secret"), "{shown}");
    }
}
