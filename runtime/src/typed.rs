//! [`TypedContract`]: an owner schema derived from a Rust type, whose answers
//! must also deserialise into that type.
//!
//! A `schemars` schema can admit values the type's `Deserialize` refuses (a
//! custom `deserialize`, `#[serde(try_from)]`, a number that does not fit the
//! field's integer type). Checking the deserialisation inside the loop makes
//! such an answer a `schema_mismatch` that gets the one repair, so a run's
//! report never says Ok about an answer the caller cannot read.

use crate::contract::{AnswerContract, Rejection};
use crate::error::SchemaError;
use crate::output::SchemaTarget;
use crate::schema::OutputSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::marker::PhantomData;
use std::sync::Arc;

/// The contract of an [`Agent<T>`](crate::Agent) made by
/// [`Agent::for_type`](crate::Agent::for_type): `T`'s derived schema, plus
/// the check that a valid answer deserialises into a `T`.
pub(crate) struct TypedContract<T> {
    schema: OutputSchema,
    answer_type: PhantomData<fn() -> T>,
}

impl<T> TypedContract<T> {
    pub(crate) fn new(schema: OutputSchema) -> Self {
        TypedContract {
            schema,
            answer_type: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for TypedContract<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedContract")
            .field("type", &std::any::type_name::<T>())
            .field("schema", &self.schema.name())
            .finish()
    }
}

impl<T: DeserializeOwned + 'static> AnswerContract for TypedContract<T> {
    fn format_name(&self) -> &str {
        self.schema.format_name()
    }

    fn wire_schema(&self, target: SchemaTarget) -> Result<Arc<Value>, SchemaError> {
        self.schema.wire_schema(target)
    }

    fn wire_root_is_object(&self, target: SchemaTarget) -> bool {
        self.schema.wire_root_is_object(target)
    }

    fn decode_and_validate(&self, target: SchemaTarget, wire: Value) -> Result<Value, Rejection> {
        let value = self.schema.decode_and_validate(target, wire)?;
        match T::deserialize(&value) {
            Ok(_) => Ok(value),
            // The message can quote the answer: it goes to the repair turn only.
            Err(e) => Err(Rejection::schema_mismatch(
                format!("the answer does not fit the expected type: {e}"),
                Vec::new(),
            )),
        }
    }
}
