//! Choosing and connecting a live backend: [`BackendKind`], [`BackendOptions`],
//! [`ProviderConfig`] and [`connect`], which reads the provider's key and base
//! URL from the environment and stacks the wrappers.
//!
//! The wrapper order [`connect`] stacks, and why: the [backend module docs](super).

use super::cache::Cached;
#[cfg(feature = "anthropic")]
use super::http::Anthropic;
#[cfg(feature = "openai")]
use super::http::{OpenAiChat, OpenAiResponses};
use super::kind::BackendKind;
use super::options::BackendOptions;
use super::provider::ProviderConfig;
use super::record::Recording;
use super::replay::Replay;
use super::retry::Retry;
use super::{Backend, BackendError, BackendErrorKind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The cache file of `kind` under `config`: a digest of the backend, model,
/// base URL, output plan and the request settings declared `cached`
/// ([`BackendSettings::cache_identity`](super::BackendSettings::cache_identity);
/// never the key), so answers of one configuration are never served to
/// another.
fn cache_file_name(kind: BackendKind, config: &ProviderConfig) -> String {
    use sha2::{Digest, Sha256};
    let mut identity = serde_json::json!({
        "backend": kind.as_str(),
        "model": config.model,
        "base_url": config.base_url,
        "plan": config.plan,
    });
    if let serde_json::Value::Object(map) = &mut identity {
        map.extend(config.settings.cache_identity());
    }
    let digest = Sha256::digest(crate::json::sorted_keys(&identity).to_string().as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}.jsonl", kind.as_str())
}

/// Connects a live backend, reading keys and base URLs from the process
/// environment. See [`connect_with_env`].
pub fn connect(
    kind: BackendKind,
    model: &str,
    options: &BackendOptions,
) -> Result<Arc<dyn Backend>, BackendError> {
    connect_with_env(kind, model, options, &|k| std::env::var(k).ok())
}

/// Connects a live backend with the environment lookup `env`, stacking the
/// wrappers in the order runtime/src/backend/mod.rs gives.
///
/// With [`BackendOptions::replay`] set the result is a [`Replay`] of that
/// cassette (no key needed; its backend and model must match). Errors: an
/// extra body setting a field the backend sends itself
/// ([`RESERVED_BODY_FIELDS`](crate::backend::RESERVED_BODY_FIELDS); replayed or not), a missing key variable, an
/// unreadable cassette, a cassette of another backend or model.
pub fn connect_with_env(
    kind: BackendKind,
    model: &str,
    options: &BackendOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Arc<dyn Backend>, BackendError> {
    // Before the replay too: a body no live connect would send is no
    // body to replay either.
    if let Some(problem) = options.settings.problem_of("extra_body") {
        return Err(BackendError::new(
            BackendErrorKind::Config,
            problem.to_string(),
        ));
    }
    if options.replay.is_some() && options.cache.is_some() {
        return Err(BackendError::new(
            BackendErrorKind::Config,
            "a replay asks no model: --cache has nothing to do with --replay",
        ));
    }
    if let Some(path) = &options.replay {
        let replay = Replay::from_file(path)?;
        if replay.name() != kind.as_str() || replay.model() != model {
            return Err(BackendError::new(
                BackendErrorKind::Config,
                format!(
                    "the cassette {} was recorded with {} / {}, not {kind} / {model}",
                    path.display(),
                    replay.name(),
                    replay.model()
                ),
            ));
        }
        let recorded = replay.output_plan().strategy;
        if let Some(wanted) = options.settings.output.fixed().filter(|w| *w != recorded) {
            return Err(BackendError::new(
                BackendErrorKind::Config,
                format!(
                    "the cassette {} was recorded with the {recorded} output strategy, not {wanted}",
                    path.display()
                ),
            ));
        }
        return Ok(Arc::new(replay));
    }
    let config = ProviderConfig::from_env(kind, model, options, env)?;
    let cache_file = options
        .cache
        .as_ref()
        .map(|dir| dir.join(cache_file_name(kind, &config)));
    let provider = live_provider(kind, config)?;
    layered(
        provider,
        options.settings.max_retries(),
        cache_file,
        options.record.as_deref(),
    )
}

/// `provider` inside the wrappers [`connect`] stacks, in the order of the
/// [module docs](self): retried `max_retries` times, answered from
/// `cache_file` when one is given, recorded to `record` when one is given.
/// Every layer is a [`Wrapper`](super::Wrapper): `preflight` and the
/// streamed pieces of an answer reach the provider through all of them.
fn layered(
    provider: Arc<dyn Backend>,
    max_retries: u32,
    cache_file: Option<PathBuf>,
    record: Option<&Path>,
) -> Result<Arc<dyn Backend>, BackendError> {
    let mut retried: Arc<dyn Backend> = Arc::new(Retry::new(provider, max_retries));
    if let Some(file) = cache_file {
        retried = Arc::new(Cached::open(retried, file)?);
    }
    match record {
        Some(path) => Ok(Arc::new(Recording::new(retried, path)?)),
        None => Ok(retried),
    }
}

/// The provider backend of `kind`, if this build has it (see
/// [`BackendKind::feature`]).
#[cfg_attr(
    not(any(feature = "openai", feature = "anthropic")),
    allow(unused_variables)
)]
fn live_provider(
    kind: BackendKind,
    config: ProviderConfig,
) -> Result<Arc<dyn Backend>, BackendError> {
    match kind {
        #[cfg(feature = "openai")]
        BackendKind::OpenAiChat => Ok(Arc::new(OpenAiChat::new(config)?)),
        #[cfg(feature = "openai")]
        BackendKind::OpenAiResponses => Ok(Arc::new(OpenAiResponses::new(config)?)),
        #[cfg(feature = "anthropic")]
        BackendKind::Anthropic => Ok(Arc::new(Anthropic::new(config)?)),
        // Reached only when a feature is off.
        #[allow(unreachable_patterns)]
        _ => Err(BackendError::new(
            BackendErrorKind::Config,
            format!(
                "this build has no {kind} backend: build tribunal-runtime with the `{}` feature",
                kind.feature()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::provider::{check_options, resolve_plan};
    use crate::backend::{BackendInfo, Delta, DeltaSink, ModelRequest, OutputFormat};
    use crate::conversation::{Conversation, ModelTurn};
    use crate::output::{OutputChoice, OutputPlan, OutputStrategy, SchemaTarget};
    use futures::future::BoxFuture;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A provider that counts its preflights and streams its answer in two
    /// pieces.
    #[derive(Default)]
    struct Probe {
        preflights: AtomicUsize,
        streamed: AtomicUsize,
    }

    impl Backend for Probe {
        fn info(&self) -> BackendInfo<'_> {
            BackendInfo {
                name: "probe",
                model: "m",
                plan: OutputPlan::prompt(),
            }
        }

        fn complete<'a>(
            &'a self,
            _: &'a ModelRequest,
        ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
            Box::pin(async {
                Err(BackendError::new(
                    BackendErrorKind::Script,
                    "asked unstreamed: a layer dropped the sink",
                ))
            })
        }

        fn complete_streaming<'a>(
            &'a self,
            _: &'a ModelRequest,
            sink: DeltaSink<'a>,
        ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
            self.streamed.fetch_add(1, Ordering::Relaxed);
            sink(Delta::Text("stre".into()));
            sink(Delta::Text("amed".into()));
            Box::pin(async {
                Ok(ModelTurn {
                    text: "streamed".into(),
                    ..Default::default()
                })
            })
        }

        fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
            self.preflights.fetch_add(1, Ordering::Relaxed);
            Box::pin(std::future::ready(Ok(())))
        }
    }

    /// The whole stack `connect` builds (retries, cache, recording) passes
    /// the check before the first item and a streamed answer's pieces to
    /// the provider: a layer that swallowed `preflight` or answered a
    /// streaming call unstreamed fails here.
    #[tokio::test]
    async fn every_layer_passes_preflight_and_the_stream_to_the_provider() {
        let dir = tempfile::tempdir().unwrap();
        let probe = Arc::new(Probe::default());
        let stack = layered(
            probe.clone(),
            2,
            Some(dir.path().join("cache.jsonl")),
            Some(&dir.path().join("run.jsonl")),
        )
        .unwrap();
        assert_eq!(stack.info(), probe.info());
        stack.preflight().await.unwrap();
        assert_eq!(probe.preflights.load(Ordering::Relaxed), 1);
        let request = ModelRequest {
            conversation: Conversation::new(None, "hi").into(),
            tools: Vec::new().into(),
            tool_choice: Default::default(),
            output: OutputFormat::Text,
            max_output_tokens: None,
        };
        let seen = std::sync::Mutex::new(Vec::new());
        let sink = |delta| seen.lock().unwrap().push(delta);
        let turn = stack.complete_streaming(&request, &sink).await.unwrap();
        assert_eq!(turn.text, "streamed");
        assert_eq!(probe.streamed.load(Ordering::Relaxed), 1);
        assert_eq!(
            seen.into_inner().unwrap(),
            ["stre", "amed"].map(|t| Delta::Text(t.into())),
            "the provider's own pieces, not the whole turn at once"
        );
    }

    /// Whether this build has `kind`'s backend.
    fn built(kind: BackendKind) -> bool {
        match kind {
            BackendKind::OpenAiChat | BackendKind::OpenAiResponses => cfg!(feature = "openai"),
            BackendKind::Anthropic => cfg!(feature = "anthropic"),
        }
    }

    #[test]
    fn a_backend_left_out_of_the_build_is_refused_naming_its_feature() {
        let env = |k: &str| (k.ends_with("_API_KEY")).then(|| "sk-test".to_string());
        for kind in BackendKind::ALL {
            let connected = connect_with_env(kind, "m", &BackendOptions::default(), &env);
            match connected {
                Ok(_) => assert!(built(kind), "{kind}"),
                Err(e) => {
                    assert!(!built(kind), "{kind}: {e}");
                    assert_eq!(e.kind, BackendErrorKind::Config);
                    assert!(
                        e.to_string()
                            .contains(&format!("`{}` feature", kind.feature())),
                        "{e}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_cassette_replays_in_every_build() {
        let cassette = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/cassettes/embed.qwen.jsonl"
        );
        let options = BackendOptions {
            replay: Some(cassette.into()),
            ..BackendOptions::default()
        };
        let replay = connect_with_env(BackendKind::OpenAiChat, "qwen", &options, &|_| None);
        let backend = replay.map_err(|e| e.to_string()).unwrap();
        assert_eq!((backend.name(), backend.model()), ("openai-chat", "qwen"));
    }

    #[test]
    fn kinds_parse_from_cli_names() {
        for kind in BackendKind::ALL {
            assert_eq!(kind.as_str().parse::<BackendKind>(), Ok(kind));
        }
        let err = "mock".parse::<BackendKind>().unwrap_err();
        assert_eq!(err.kind, BackendErrorKind::Config);
        assert!(
            err.message
                .contains("(expected openai-chat, openai-responses or anthropic)"),
            "{}",
            err.message
        );
    }

    #[test]
    fn missing_key_names_the_variable() {
        let env = |_: &str| None;
        let err = connect_with_env(
            BackendKind::Anthropic,
            "claude",
            &BackendOptions::default(),
            &env,
        )
        .err()
        .unwrap();
        assert_eq!(err.kind, BackendErrorKind::Config);
        assert!(err.message.contains("ANTHROPIC_API_KEY"), "{}", err.message);
    }

    #[test]
    fn calls_written_as_text_are_read_off_the_hosted_apis_unless_turned_off() {
        let chat = BackendKind::OpenAiChat;
        let auto = BackendOptions::default();
        assert!(!resolve_plan(chat, "https://api.openai.com/v1", &auto).read_text_calls);
        let anthropic = resolve_plan(BackendKind::Anthropic, "https://api.anthropic.com", &auto);
        assert!(!anthropic.read_text_calls);
        assert!(resolve_plan(chat, "http://127.0.0.1:18084/v1", &auto).read_text_calls);
        let off = BackendOptions {
            settings: crate::backend::BackendSettings {
                read_text_calls: Some(false),
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        assert!(!resolve_plan(chat, "http://127.0.0.1:18084/v1", &off).read_text_calls);
        let on = BackendOptions {
            settings: crate::backend::BackendSettings {
                read_text_calls: Some(true),
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        assert!(resolve_plan(chat, "https://api.openai.com/v1", &on).read_text_calls);
        // In the hash only when set: earlier runs keep their identity.
        use crate::backend::BackendSettings;
        let unset = BackendSettings::default().hashed();
        assert!(unset.get("read_text_calls").is_none());
        let set = BackendSettings {
            read_text_calls: Some(false),
            ..BackendSettings::default()
        };
        assert_eq!(set.hashed()["read_text_calls"], false);
    }

    #[test]
    fn auto_keeps_native_on_hosted_apis_and_never_grammars_tool_turns_elsewhere() {
        let auto = BackendOptions::default();
        let chat = BackendKind::OpenAiChat;
        let hosted = resolve_plan(chat, "https://api.openai.com/v1", &auto);
        assert_eq!(hosted, OutputPlan::native(SchemaTarget::OpenAi));
        assert!(hosted.schema_on_tool_turns);
        let azure = resolve_plan(
            BackendKind::OpenAiResponses,
            "https://team.openai.azure.com/openai/v1",
            &auto,
        );
        assert_eq!(azure.strategy, OutputStrategy::Native);
        for local in [
            "http://127.0.0.1:18084/v1",
            "http://vllm:8000/v1",
            "not a url",
        ] {
            let plan = resolve_plan(chat, local, &auto);
            let tool = OutputPlan::tool(SchemaTarget::OpenAi);
            assert_eq!(
                plan,
                OutputPlan {
                    read_text_calls: true,
                    ..tool
                },
                "{local}"
            );
            assert!(!plan.schema_on_tool_turns);
        }
        // A look-alike host is not the hosted API.
        let lookalike = resolve_plan(chat, "https://api.openai.com.evil.example/v1", &auto);
        assert_eq!(lookalike.strategy, OutputStrategy::Tool);
        // Native on a compatible server: no schema beside tools unless asked.
        let native = BackendOptions {
            settings: crate::backend::BackendSettings {
                output: OutputChoice::Native,
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let plan = resolve_plan(chat, "http://127.0.0.1:18084/v1", &native);
        assert_eq!(plan.strategy, OutputStrategy::Native);
        assert!(!plan.schema_on_tool_turns);
        let forced = BackendOptions {
            settings: crate::backend::BackendSettings {
                schema_on_tool_turns: Some(true),
                ..native.clone().settings
            },
            ..native.clone()
        };
        assert!(resolve_plan(chat, "http://127.0.0.1:18084/v1", &forced).schema_on_tool_turns);
        let anthropic = resolve_plan(BackendKind::Anthropic, "https://api.anthropic.com", &auto);
        assert_eq!(anthropic, OutputPlan::native(SchemaTarget::Anthropic));
        let elsewhere = resolve_plan(BackendKind::Anthropic, "http://127.0.0.1:9/", &auto);
        let tool = OutputPlan::tool(SchemaTarget::Anthropic);
        assert_eq!(
            elsewhere,
            OutputPlan {
                read_text_calls: true,
                ..tool
            }
        );
        let prompt = BackendOptions {
            settings: crate::backend::BackendSettings {
                output: OutputChoice::Prompt,
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        assert_eq!(
            resolve_plan(BackendKind::Anthropic, "https://api.anthropic.com", &prompt),
            OutputPlan::prompt()
        );
    }

    #[test]
    fn settings_a_provider_cannot_take_are_config_errors() {
        let with = |temperature, seed| {
            BackendOptions::from(crate::backend::BackendSettings {
                temperature,
                seed,
                ..Default::default()
            })
        };
        assert!(check_options(BackendKind::OpenAiChat, &with(Some(1.5), Some(7))).is_ok());
        let hot = check_options(BackendKind::Anthropic, &with(Some(1.5), None)).unwrap_err();
        assert!(
            hot.message.contains("outside the anthropic range 0 to 1"),
            "{}",
            hot.message
        );
        assert!(check_options(BackendKind::OpenAiChat, &with(Some(f64::NAN), None)).is_err());
        assert!(check_options(BackendKind::OpenAiChat, &with(Some(-0.1), None)).is_err());
        let seed = check_options(BackendKind::OpenAiResponses, &with(None, Some(1))).unwrap_err();
        assert!(seed.message.contains("takes no seed"), "{}", seed.message);
        // An embedder's extra body may not set what the backend sends:
        // `stream` would break reading the answer (every call streams).
        let mut streamed = with(None, None);
        streamed
            .settings
            .extra_body
            .insert("stream".into(), serde_json::json!(false));
        let owned = check_options(BackendKind::OpenAiChat, &streamed).unwrap_err();
        assert_eq!(owned.kind, BackendErrorKind::Config);
        assert!(
            owned.message.contains("extra_body sets stream"),
            "{}",
            owned.message
        );
    }

    #[test]
    fn connect_refuses_an_extra_body_setting_a_reserved_field_for_every_caller() {
        let env = |k: &str| (k.ends_with("_API_KEY")).then(|| "sk-test".to_string());
        let cassette = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/cassettes/embed.qwen.jsonl"
        );
        let messages = BackendOptions {
            settings: crate::backend::BackendSettings {
                extra_body: serde_json::json!({"messages": [], "top_k": 20})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let replayed = BackendOptions {
            replay: Some(cassette.into()),
            ..messages.clone()
        };
        for kind in BackendKind::ALL {
            for options in [&messages, &replayed] {
                let err = connect_with_env(kind, "qwen", options, &env)
                    .err()
                    .map(|e| (e.kind, e.message));
                let (code, message) = err.unwrap_or_else(|| panic!("{kind}: connected"));
                assert_eq!(code, BackendErrorKind::Config);
                assert!(
                    message.starts_with("extra_body sets messages, which the backend itself sends"),
                    "{kind}: {message}"
                );
            }
        }
        // The same body without the reserved field connects.
        let mut fine = messages.clone();
        fine.settings.extra_body.remove("messages");
        let chat = connect_with_env(BackendKind::OpenAiChat, "qwen", &fine, &env);
        assert_eq!(chat.is_ok(), built(BackendKind::OpenAiChat));
    }

    #[test]
    fn debug_hides_the_key() {
        let env = |k: &str| (k == "OPENAI_API_KEY").then(|| "sk-test-SECRET-123".to_string());
        let cfg = ProviderConfig::from_env(
            BackendKind::OpenAiChat,
            "gpt",
            &BackendOptions::default(),
            &env,
        )
        .unwrap();
        assert_eq!(cfg.base_url, "https://api.openai.com/v1");
        assert!(!format!("{cfg:?}").contains("SECRET"));
    }

    #[test]
    fn the_base_url_option_wins_and_a_bad_url_is_refused_once() {
        let env = |k: &str| (k == "OPENAI_BASE_URL").then(|| "http://127.0.0.1:1/v1".to_string());
        let options = BackendOptions {
            base_url: Some("http://127.0.0.1:8080/v1".to_string()),
            ..BackendOptions::default()
        };
        let cfg = ProviderConfig::from_env(BackendKind::OpenAiChat, "m", &options, &env).unwrap();
        assert_eq!(cfg.base_url, "http://127.0.0.1:8080/v1");
        for bad in ["not-a-url", "ftp://host/v1", "http://"] {
            let options = BackendOptions {
                base_url: Some(bad.to_string()),
                ..BackendOptions::default()
            };
            let err =
                ProviderConfig::from_env(BackendKind::OpenAiChat, "m", &options, &env).unwrap_err();
            assert!(
                err.message.contains("is not an http(s) URL"),
                "{bad}: {}",
                err.message
            );
        }
    }

    #[test]
    fn a_local_server_needs_no_key_and_a_hosted_api_does() {
        let options = BackendOptions::default();
        for kind in [BackendKind::OpenAiChat, BackendKind::Anthropic] {
            let local = |k: &str| {
                (k == kind.base_url_var()).then(|| "http://127.0.0.1:8080/v1".to_string())
            };
            let cfg = ProviderConfig::from_env(kind, "qwen", &options, &local).unwrap();
            assert_eq!(cfg.api_key, "", "{kind}");
            let hosted = |_: &str| None;
            let err = ProviderConfig::from_env(kind, "m", &options, &hosted).unwrap_err();
            assert!(err.message.contains(kind.key_var()), "{}", err.message);
            assert!(
                err.message.contains(kind.default_base_url()),
                "{}",
                err.message
            );
        }
    }
}
