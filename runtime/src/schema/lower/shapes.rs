//! Lowering the typed shapes: objects (closed, every property required, null
//! placeholders for optional ones, open maps as JSON text), arrays and
//! primitives.

use super::{Failure, Lowered, Lowering, make_nullable, type_keyword, wire_accepts_null};
use crate::error::SchemaError;
use crate::output::SchemaTarget;
use crate::schema::decode::{Field, Step};
use crate::schema::keywords;
use crate::schema::refs::escape;
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

impl Lowering<'_> {
    pub(super) fn lower_object(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
    ) -> Result<Lowered, Failure> {
        let node = || Value::Object(map.clone());
        if map
            .get("patternProperties")
            .is_some_and(|p| p.as_object().is_some_and(|p| !p.is_empty()))
        {
            return Ok(self.json_field(&node(), path, "an open map (patternProperties)"));
        }
        let props = match map.get("properties") {
            None => None,
            Some(Value::Object(p)) => Some(p),
            Some(_) => {
                return Err(SchemaError::new(
                    format!("{path}/properties"),
                    "`properties` must be an object",
                )
                .into());
            }
        };
        let open = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => false,
            None => props.is_none(),
            Some(Value::Bool(true) | Value::Object(_)) => true,
            Some(_) => {
                return Err(SchemaError::new(
                    format!("{path}/additionalProperties"),
                    "`additionalProperties` must be a schema",
                )
                .into());
            }
        };
        if open {
            return Ok(self.json_field(&node(), path, "an open map (additionalProperties)"));
        }
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        let mut required: Vec<String> = Vec::new();
        match map.get("required") {
            None => {}
            Some(Value::Array(names)) => {
                for n in names {
                    let Some(n) = n.as_str() else {
                        return Err(SchemaError::new(
                            format!("{path}/required"),
                            "`required` must list strings",
                        )
                        .into());
                    };
                    if !required.iter().any(|r| r == n) {
                        required.push(n.to_string());
                    }
                }
            }
            Some(_) => {
                return Err(SchemaError::new(
                    format!("{path}/required"),
                    "`required` must be an array",
                )
                .into());
            }
        }
        let empty = Map::new();
        let props = props.unwrap_or(&empty);
        let mut fields: IndexMap<String, Field> = IndexMap::new();
        let mut wire_props = Map::new();
        let any = Value::Bool(true);
        let undeclared: Vec<&String> = required
            .iter()
            .filter(|r| !props.contains_key(*r))
            .collect();
        if closed && let Some(r) = undeclared.first() {
            return Err(Failure::Infeasible(SchemaError::new(
                format!("{path}/required"),
                format!("property `{r}` is required but additionalProperties is false"),
            )));
        }
        let entries = props
            .iter()
            .chain(undeclared.into_iter().map(|r| (r, &any)));
        let mut omitted: Vec<&str> = Vec::new();
        self.level += 1;
        for (name, sub) in entries {
            let at = format!("{path}/properties/{}", escape(name));
            let is_required = required.iter().any(|r| r == name);
            if sub == &Value::Bool(false) {
                if is_required {
                    self.level -= 1;
                    return Err(Failure::Infeasible(SchemaError::new(
                        at,
                        "a required property with the schema `false`",
                    )));
                }
                self.note(&at, "never allowed (schema `false`); left out");
                continue;
            }
            let forced = self.is_forced(&at);
            let lowered = if forced {
                Ok(self.forced_field(sub, &at))
            } else {
                self.lower(sub, &at)
            };
            let (mut wire, then) = match lowered {
                Ok(x) => x,
                Err(Failure::Infeasible(_)) if !is_required => {
                    // No value fits here, but the object is fine without it.
                    self.note(&at, "no value can satisfy this optional property; left out");
                    continue;
                }
                Err(e) => {
                    self.level -= 1;
                    return Err(e);
                }
            };
            let mut field = Field {
                optional: !is_required,
                drop_null: false,
                omittable: false,
                then,
            };
            if !is_required {
                field.drop_null = !self.owner_accepts_null(sub, 0);
                if forced {
                    // The text `null` stands for "left out": no union needed.
                    if let Some(Value::String(d)) = wire.get_mut("description") {
                        d.push_str(" Write the text null to leave it out.");
                    }
                } else if wire_accepts_null(&wire) {
                    self.note(&at, "optional: sent as required with a null placeholder");
                } else if self.omit_left > 0 {
                    self.omit_left -= 1;
                    field.omittable = true;
                    omitted.push(name);
                    self.note(&at, "optional: sent as optional (to fit the limits)");
                } else {
                    wire = make_nullable(wire);
                    self.note(&at, "optional: sent as required with a null placeholder");
                }
            }
            self.candidate(&at, &wire);
            fields.insert(name.clone(), field);
            wire_props.insert(name.clone(), wire);
        }
        self.level -= 1;
        let handled = [
            "type",
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
        ];
        let description = self.describe(map, &["object"], &handled, path);
        let mut wire = Map::new();
        wire.insert("type".into(), json!("object"));
        if let Some(d) = description {
            wire.insert("description".into(), Value::String(d));
        }
        let names: Vec<Value> = wire_props
            .keys()
            .filter(|k| !omitted.contains(&k.as_str()))
            .map(|k| json!(k))
            .collect();
        wire.insert("properties".into(), Value::Object(wire_props));
        wire.insert("required".into(), Value::Array(names));
        wire.insert("additionalProperties".into(), Value::Bool(false));
        let step = if fields.values().all(Field::is_trivial) {
            Step::Keep
        } else {
            Step::Object { fields }
        };
        Ok((Value::Object(wire), step))
    }

    pub(super) fn lower_array(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
    ) -> Result<Lowered, Failure> {
        let node = || Value::Object(map.clone());
        if map.contains_key("prefixItems") || map.get("items").is_some_and(Value::is_array) {
            return Ok(self.json_field(&node(), path, "a tuple (prefixItems)"));
        }
        let Some(items) = map.get("items") else {
            return Ok(self.json_field(&node(), path, "an array of items of any type"));
        };
        let at = format!("{path}/items");
        self.level += 1;
        let lowered = if self.is_forced(&at) {
            Ok(self.forced_field(items, &at))
        } else {
            self.lower(items, &at)
        };
        if let Ok((wire, _)) = &lowered {
            self.candidate(&at, wire);
        }
        self.level -= 1;
        let (items_wire, items_step) = match lowered {
            Ok(x) => x,
            Err(Failure::Infeasible(_)) => {
                return Ok(self.json_field(
                    &node(),
                    path,
                    "an array whose items no value can satisfy (only [] is valid)",
                ));
            }
            Err(e) => return Err(e),
        };
        let mut handled = vec!["type", "items"];
        let mut wire = Map::new();
        wire.insert("type".into(), json!("array"));
        let mut tail = Vec::new();
        for k in ["minItems", "maxItems"] {
            if let Some(v) = map.get(k)
                && keywords::items_bound_supported(k, v, self.target)
            {
                handled.push(k);
                tail.push((k, v.clone()));
            }
        }
        if let Some(d) = self.describe(map, &["array"], &handled, path) {
            wire.insert("description".into(), Value::String(d));
        }
        wire.insert("items".into(), items_wire);
        for (k, v) in tail {
            wire.insert(k.into(), v);
        }
        let step = if items_step.is_keep() {
            Step::Keep
        } else {
            Step::Array {
                items: Box::new(items_step),
            }
        };
        Ok((Value::Object(wire), step))
    }

    pub(super) fn lower_primitive(
        &mut self,
        map: &Map<String, Value>,
        types: Vec<String>,
        path: &str,
    ) -> Lowered {
        let mut handled = vec!["type", "enum", "const"];
        let mut wire = Map::new();
        wire.insert("type".into(), type_keyword(&types));
        let mut tail = Vec::new();
        for k in ["enum", "const"] {
            if let Some(v) = map.get(k) {
                tail.push((k, v.clone()));
            }
        }
        for (k, v) in map {
            if keywords::primitive_keyword_supported(k, v, self.target) {
                handled.push(k);
                tail.push((k, v.clone()));
            }
        }
        let type_names: Vec<&str> = types.iter().map(String::as_str).collect();
        if let Some(d) = self.describe(map, &type_names, &handled, path) {
            wire.insert("description".into(), Value::String(d));
        }
        for (k, v) in tail {
            wire.insert(k.into(), v);
        }
        let mut strings: Vec<String> = Vec::new();
        if let Some(Value::Array(values)) = map.get("enum") {
            strings.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
        }
        if let Some(Value::String(c)) = map.get("const") {
            strings.push(c.clone());
        }
        let step = if self.target == SchemaTarget::Anthropic && !strings.is_empty() {
            Step::Enum { values: strings }
        } else {
            Step::Keep
        };
        (Value::Object(wire), step)
    }
}
