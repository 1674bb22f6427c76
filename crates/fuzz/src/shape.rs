//! What an input made a reader do, as a set of features: each field of the facts it returned
//! with the kind of its value, each kind of warning or error, each count's order of magnitude.
//! An input with a feature never seen joins the corpus, so the campaign keeps what reached new
//! code without instrumenting it (cargo-fuzz's coverage needs a nightly compiler): coverage by
//! outcome. Features, not one hash of the whole outcome: a hash of the whole is new for nearly
//! every input (the product of every field's variations), which would fill the corpus with noise.

use rustc_hash::FxHasher as DefaultHasher;
use serde_json::Value;
use std::hash::{Hash, Hasher};

/// How deep a value's fields are followed.
const MAX_DEPTH: usize = 24;

/// A reader's outcome, as features.
#[derive(Default)]
pub struct Shape(Vec<u64>);

/// The keys that are field names: those of the seeds' facts. Any other key is data (an
/// interface, a counter an edit made up) and counts as `*`.
pub type Names = std::collections::HashSet<String>;

fn hash(parts: impl Hash) -> u64 {
    let mut h = DefaultHasher::default();
    parts.hash(&mut h);
    h.finish()
}

impl Shape {
    /// The features added.
    pub fn features(self) -> Vec<u64> {
        self.0
    }

    /// Adds a fixed marker: which branch an outcome took.
    pub fn tag(&mut self, tag: &str) -> &mut Shape {
        self.0.push(hash(("tag", tag)));
        self
    }

    /// Adds a count, by its power of two: 3 rows and 4 rows are alike, 3 and 300 are not.
    pub fn count(&mut self, what: &str, n: usize) -> &mut Shape {
        self.0.push(hash(("count", what, usize::BITS - n.leading_zeros())));
        self
    }

    /// Adds a message by its kind: its first words, up to a value it quotes or a `:` that
    /// introduces the line it is about, digits dropped.
    pub fn message(&mut self, message: &str) -> &mut Shape {
        let mut h = DefaultHasher::default();
        "message".hash(&mut h);
        for word in message.split_whitespace().take(5) {
            if word.contains(['`', '"', '\'']) {
                break;
            }
            word.chars().filter(|c| c.is_alphabetic()).for_each(|c| c.hash(&mut h));
            0u8.hash(&mut h);
            if word.ends_with(':') {
                break;
            }
        }
        self.0.push(h.finish());
        self
    }

    /// Adds every field of a JSON value, by its path of names, with its value's kind.
    pub fn json(&mut self, value: &Value, names: &Names) -> &mut Shape {
        self.value(value, names, hash("$"), 0);
        self
    }

    fn value(&mut self, value: &Value, names: &Names, path: u64, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let kind = match value {
            Value::Null => 0,
            Value::Bool(b) => 1 + u8::from(*b),
            Value::Number(n) => 3 + number_kind(n),
            Value::String(s) => 8 + u8::from(s.is_empty()),
            Value::Array(items) => {
                let inner = hash((path, "[]"));
                items.iter().for_each(|v| self.value(v, names, inner, depth + 1));
                10 + u8::from(items.is_empty())
            }
            Value::Object(fields) => {
                for (k, v) in fields {
                    let inner = hash((path, if names.contains(k) { k.as_str() } else { "*" }));
                    self.value(v, names, inner, depth + 1);
                }
                12 + u8::from(fields.is_empty())
            }
        };
        self.0.push(hash((path, kind)));
    }
}

/// Zero, small, past 32 bits, negative or fractional: where conversions go wrong.
fn number_kind(n: &serde_json::Number) -> u8 {
    match (n.as_u64(), n.as_i64()) {
        (Some(0), _) => 0,
        (Some(u), _) if u <= u64::from(u32::MAX) => 1,
        (Some(_), _) => 2,
        (None, Some(_)) => 3,
        (None, None) => 4,
    }
}

/// The keys of `values`, at every depth.
pub fn field_names<'a>(values: impl Iterator<Item = &'a Value>) -> Names {
    fn walk(v: &Value, names: &mut Names) {
        match v {
            Value::Array(items) => items.iter().for_each(|i| walk(i, names)),
            Value::Object(fields) => fields.iter().for_each(|(k, v)| {
                names.insert(k.clone());
                walk(v, names);
            }),
            _ => {}
        }
    }
    let mut names = Names::new();
    values.for_each(|v| walk(v, &mut names));
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn features(v: Value) -> std::collections::BTreeSet<u64> {
        let names = field_names([json!({"ports": {"pfc": 1, "ecn": 1}, "mtu": 1})].iter());
        let mut s = Shape::default();
        s.json(&v, &names);
        s.features().into_iter().collect()
    }

    #[test]
    fn values_and_data_keys_are_no_feature_but_fields_and_kinds_are() {
        let a = features(json!({"ports": {"Ethernet0": {"pfc": [3, 4]}}, "mtu": 9100}));
        assert_eq!(a, features(json!({"ports": {"swp7": {"pfc": [4]}, "swp8": {"pfc": [3]}}, "mtu": 1500})));
        let null_mtu = features(json!({"ports": {"Ethernet0": {"pfc": [3, 4]}}, "mtu": null}));
        assert_eq!(null_mtu.difference(&a).count(), 1, "one new feature: mtu is null");
        assert_ne!(a, features(json!({"ports": {"Ethernet0": {"ecn": [3, 4]}}, "mtu": 9100})));
        assert_ne!(a, features(json!({"ports": {"Ethernet0": {"pfc": [3, 4]}}, "mtu": 18446744073709551615u64})));
    }

    #[test]
    fn messages_count_by_their_words_not_their_values() {
        let m = |s: &str| {
            let mut shape = Shape::default();
            shape.message(s);
            shape.features()
        };
        assert_eq!(m("line 4: bad value `x`"), m("line 97: bad value `y7`"));
        assert_ne!(m("bad value"), m("unknown field"));
        assert_eq!(m("not understood: Ethernet0 up"), m("not understood: swp1 down"));
        let c = |n| {
            let mut shape = Shape::default();
            shape.count("rows", n);
            shape.features()
        };
        assert_eq!(c(5), c(7));
        assert_ne!(c(5), c(9));
    }
}
