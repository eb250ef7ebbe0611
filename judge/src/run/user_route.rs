//! [`WithUser`]: a run's backends with the simulated user on a route of
//! its own (`[user]`, `--user-backend` / `--user-model`): every item's
//! agent and judge are the inner factory's, the conversation items' user
//! is `user` — a wrapper, as the judge's route is not a switch in the
//! backends it rides beside.

use crate::arena::item::Item;
use crate::run::backends::BackendFactory;
use crate::score::checks::ItemCheck;
use futures::future::BoxFuture;
use std::sync::Arc;
use tribunal_runtime::Backend;
use tribunal_runtime::internal::backend::BackendError;
use tribunal_runtime::internal::output::OutputPlan;

/// `inner`'s backends, with the simulated user on `user`.
pub(crate) struct WithUser {
    inner: Arc<dyn BackendFactory>,
    user: Arc<dyn Backend>,
    custom_endpoint: bool,
}

impl WithUser {
    /// `inner`'s backends, the user on `user` (reached at a custom endpoint
    /// when `custom_endpoint`).
    pub(crate) fn new(
        inner: Arc<dyn BackendFactory>,
        user: Arc<dyn Backend>,
        custom_endpoint: bool,
    ) -> Self {
        WithUser {
            inner,
            user,
            custom_endpoint,
        }
    }
}

impl std::fmt::Debug for WithUser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "WithUser({} / {}; user {} / {})",
            self.inner.name(),
            self.inner.model(),
            self.user.name(),
            self.user.model()
        )
    }
}

impl BackendFactory for WithUser {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn is_mock(&self) -> bool {
        self.inner.is_mock()
    }

    fn is_replay(&self) -> bool {
        self.inner.is_replay()
    }

    fn is_custom_endpoint(&self) -> bool {
        self.inner.is_custom_endpoint()
    }

    fn output_plan(&self) -> OutputPlan {
        self.inner.output_plan()
    }

    fn backend_for(&self, item: &Item) -> Arc<dyn Backend> {
        self.inner.backend_for(item)
    }

    fn judge_for(&self, item: &Item, check: &ItemCheck) -> Option<Arc<dyn Backend>> {
        self.inner.judge_for(item, check)
    }

    fn judge_name(&self) -> Option<(String, String)> {
        self.inner.judge_name()
    }

    fn judge_on_custom_endpoint(&self) -> bool {
        self.inner.judge_on_custom_endpoint()
    }

    fn user_for(&self, _item: &Item) -> Option<Arc<dyn Backend>> {
        Some(self.user.clone())
    }

    fn user_on_custom_endpoint(&self) -> bool {
        self.custom_endpoint
    }

    fn preflight(&self) -> BoxFuture<'_, Result<(), BackendError>> {
        Box::pin(async move {
            self.inner.preflight().await?;
            self.user.preflight().await
        })
    }
}
