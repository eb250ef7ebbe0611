//! The simulated user's route flags of `tribunal run` (`--user-backend`,
//! `--user-model`, `--user-base-url`), over `[user]` of arena.toml, as the
//! `--judge-*` flags are over `[judge]`.

use super::backend_choice::BackendChoice;
use super::shape::heading;
use tribunal::judge::Arena;
use tribunal::judge::RunPlan;

/// Where the conversation items' simulated user runs.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct UserRouteFlags {
    /// The provider of the conversation items' simulated user.
    ///
    /// The provider of the conversation items' simulated user (items whose
    /// `user` has `instructions`). Default: `[user]` backend in arena.toml,
    /// else --backend. On a mock run a live user talks with the scripted
    /// agent (--record, --replay and --cache are then the user's): how the
    /// simulator is measured. Records into and replays from
    /// DIR/<arena>.user.jsonl.
    #[arg(long, value_enum, help_heading = heading::MODEL, hide_short_help = true)]
    pub(crate) user_backend: Option<BackendChoice>,
    /// The simulated user's model.
    ///
    /// The simulated user's model (default: `[user]` model in arena.toml,
    /// else --model when on the run's provider).
    #[arg(long, value_name = "MODEL", help_heading = heading::MODEL, hide_short_help = true)]
    pub(crate) user_model: Option<String>,
    /// The API root of the simulated user's server.
    ///
    /// The API root of the simulated user's server (default: --base-url
    /// when the user is on the run's provider, else OPENAI_BASE_URL or
    /// ANTHROPIC_BASE_URL, else the provider's own).
    #[arg(long, value_name = "URL", help_heading = heading::MODEL, hide_short_help = true)]
    pub(crate) user_base_url: Option<String>,
}

impl UserRouteFlags {
    /// Whether, on a mock run of `arena`, a live model plays its users:
    /// --record, --replay and --cache are then the user's.
    pub(crate) fn live_user_on_mock(&self, arena: &Arena) -> bool {
        self.user_backend.and_then(BackendChoice::live).is_some() && arena.has_model_users()
    }

    /// `plan` with the user's route, checked: a user flag needs model
    /// users to route (a live run's, or a live --user-backend on a mock
    /// run), and `--user-backend mock` is refused (a scripted user is the
    /// items' `script`).
    pub(crate) fn applied(&self, plan: RunPlan, arena: &Arena) -> anyhow::Result<RunPlan> {
        let any = self.user_backend.is_some()
            || self.user_model.is_some()
            || self.user_base_url.is_some();
        if !any {
            return Ok(plan);
        }
        let Some(kind) = self.user_backend.map_or(Some(None), |c| c.live().map(Some)) else {
            anyhow::bail!(
                "--user-backend mock: a scripted user is the items' `script`, which the mock plays; name a live provider"
            );
        };
        let routed = arena.has_model_users() && (!plan.is_mock() || kind.is_some());
        if !routed {
            anyhow::bail!(
                "--user-backend, --user-model and --user-base-url need a simulated user to route: conversation items whose `user` has `instructions`, on a live --backend or with a live --user-backend"
            );
        }
        Ok(plan
            .with_user(kind, self.user_model.clone())
            .with_user_base_url(self.user_base_url.clone()))
    }
}
