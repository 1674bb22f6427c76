//! Inventory variable values, typed just enough for fabcheck's needs.
//!
//! Ansible variables can hold anything; fabcheck reads a handful of them and passes the rest
//! through untouched (for reports), so a small closed enum is enough. The YAML reader fills it
//! through a hand-written visitor rather than `#[serde(untagged)]`, which keeps serde-saphyr's
//! own typing of each scalar (`yes` is whatever serde-saphyr says it is) and its locations.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

/// The value of one inventory variable.
///
/// Floats and other scalars fabcheck never reads as numbers are kept as their text. A null
/// value (`key: ~`, `key=None`) means "not set here" and never reaches this type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarValue {
    /// Text.
    String(String),
    /// An integer.
    Int(i64),
    /// A boolean (YAML `true`, INI `True`).
    Bool(bool),
    /// A list, such as `fabcheck_nics: [mlx5_0, mlx5_1]`.
    List(Vec<VarValue>),
    /// A mapping; fabcheck reads none, but user inventories have them and must still load.
    Map(BTreeMap<String, VarValue>),
}

impl VarValue {
    /// The text, when the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            VarValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, when the value is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            VarValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The boolean, when the value is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            VarValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The items, when the value is a list.
    pub fn as_list(&self) -> Option<&[VarValue]> {
        match self {
            VarValue::List(items) => Some(items),
            _ => None,
        }
    }
}

impl fmt::Display for VarValue {
    /// Scalars print as written; lists and maps in YAML flow style.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarValue::String(s) => f.write_str(s),
            VarValue::Int(i) => write!(f, "{i}"),
            VarValue::Bool(b) => write!(f, "{b}"),
            VarValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            VarValue::Map(map) => {
                f.write_str("{")?;
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

impl From<&str> for VarValue {
    fn from(s: &str) -> Self {
        VarValue::String(s.to_owned())
    }
}

impl From<i64> for VarValue {
    fn from(i: i64) -> Self {
        VarValue::Int(i)
    }
}

impl serde::Serialize for VarValue {
    /// Serialises as the plain JSON value (no tag), for reports and `--list`-style output.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            VarValue::String(s) => serializer.serialize_str(s),
            VarValue::Int(i) => serializer.serialize_i64(*i),
            VarValue::Bool(b) => serializer.serialize_bool(*b),
            VarValue::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            VarValue::Map(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (k, v) in map {
                    out.serialize_entry(k, v)?;
                }
                out.end()
            }
        }
    }
}

/// A value as read from YAML: `None` for null, which means "not set here".
pub(crate) struct MaybeVar(pub(crate) Option<VarValue>);

impl<'de> serde::Deserialize<'de> for MaybeVar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor).map(MaybeVar)
    }
}

/// Maps each serde data model type to the nearest [`VarValue`].
struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Option<VarValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variable value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(VarValue::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(VarValue::Int(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(match i64::try_from(v) {
            Ok(i) => VarValue::Int(i),
            Err(_) => VarValue::String(v.to_string()),
        }))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Self::Value, E> {
        Ok(Some(match i64::try_from(v) {
            Ok(i) => VarValue::Int(i),
            Err(_) => VarValue::String(v.to_string()),
        }))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Self::Value, E> {
        Ok(Some(match i64::try_from(v) {
            Ok(i) => VarValue::Int(i),
            Err(_) => VarValue::String(v.to_string()),
        }))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(VarValue::String(v.to_string())))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(VarValue::String(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(VarValue::String(v)))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Self::Value, E> {
        Ok(Some(VarValue::String(String::from_utf8_lossy(v).into_owned())))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(MaybeVar(item)) = seq.next_element()? {
            // A null item carries nothing fabcheck can use; dropping it keeps lists uniform.
            items.extend(item);
        }
        Ok(Some(VarValue::List(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(ScalarKey(key)) = map.next_key()? {
            let MaybeVar(value) = map.next_value()?;
            if let Some(value) = value {
                out.insert(key, value);
            }
        }
        Ok(Some(VarValue::Map(out)))
    }
}

/// A mapping key inside a variable value: any scalar, kept as text.
pub(crate) struct ScalarKey(pub(crate) String);

impl<'de> serde::Deserialize<'de> for ScalarKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = String;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a scalar mapping key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
                Ok(v.to_owned())
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<String, E> {
                Ok(v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
                Ok(v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
                Ok(v.to_string())
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
                Ok(v.to_string())
            }
            fn visit_unit<E: de::Error>(self) -> Result<String, E> {
                Ok("null".to_owned())
            }
        }
        deserializer.deserialize_any(KeyVisitor).map(ScalarKey)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Option<VarValue> {
        serde_saphyr::from_str::<MaybeVar>(yaml).unwrap().0
    }

    #[test]
    fn scalars_keep_serde_saphyr_typing() {
        assert_eq!(parse("mlx5_0"), Some(VarValue::from("mlx5_0")));
        assert_eq!(parse("8"), Some(VarValue::Int(8)));
        assert_eq!(parse("true"), Some(VarValue::Bool(true)));
        assert_eq!(parse("'8'"), Some(VarValue::from("8")));
        assert_eq!(parse("1.5"), Some(VarValue::from("1.5")));
        assert_eq!(parse("~"), None);
        assert_eq!(parse("[mlx5_0, mlx5_1]"), Some(VarValue::List(vec!["mlx5_0".into(), "mlx5_1".into()])));
        let Some(VarValue::Map(m)) = parse("{a: 1, b: [x], c: ~}") else {
            panic!("not a map");
        };
        assert_eq!(m.len(), 2);
        assert_eq!(m["a"], VarValue::Int(1));
    }

    #[test]
    fn display_and_json() {
        let v = VarValue::List(vec!["a".into(), VarValue::Int(2), VarValue::Bool(false)]);
        assert_eq!(v.to_string(), "[a, 2, false]");
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"["a",2,false]"#);
    }
}
