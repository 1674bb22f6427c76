//! [`flatten`]'s rules applied while a value serializes, without building it as a
//! `serde_json::Value` first: a host's configuration is a few hundred settings read from a dozen
//! typed facts, and building each as a tree of maps, walking it and dropping it was most of
//! what keeping a host's configuration cost (0.6 million instructions a lab host).
//!
//! Structs and maps nest by dotted key, an enum variant with data is a key (as `serde_json`
//! writes it), and absent values (`None`, unit, a float that is not finite) leave nothing. A
//! sequence is the one case whose shape decides its form (scalars: one `[a, b]` value; else a
//! key per index): its elements are read as scalars' text while they are scalars, and from the
//! first that is not, each is flattened under its index (the scalars before it too). Scalars are
//! written as `serde_json` writes them; map keys as the scalars they are.
//!
//! [`flatten`]: super::flatten

use super::{flatten_at, list_text};
use serde::ser::{self, Serialize};
use std::fmt::Display;

/// Adds `value`'s leaves under `prefix` to `into`, as `flatten(&serde_json::to_value(value)?,
/// prefix, into)` would; nothing when the value cannot be a `serde_json::Value` (a map key that
/// is not a string or number, a 128-bit integer out of range).
pub fn flatten_value(value: &impl Serialize, prefix: &str, into: &mut Vec<(String, String)>) {
    let kept = into.len();
    let mut path = prefix.to_string();
    if value.serialize(Leaves { path: &mut path, into }).is_err() {
        into.truncate(kept);
    }
}

/// Why a value has no leaves: serde's errors need a type of their own.
#[derive(Debug)]
pub struct NotFlat(String);

impl Display for NotFlat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotFlat {}

impl ser::Error for NotFlat {
    fn custom<T: Display>(message: T) -> NotFlat {
        NotFlat(message.to_string())
    }
}

impl From<serde_json::Error> for NotFlat {
    fn from(e: serde_json::Error) -> NotFlat {
        NotFlat(e.to_string())
    }
}

/// Why a value is not a scalar's text: it is compound (a list, a map, a struct, an enum
/// variant with data), or it cannot be serialized at all.
#[derive(Debug)]
enum NotScalar {
    Compound,
    Failed(NotFlat),
}

impl Display for NotScalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotScalar::Compound => f.write_str("not a scalar"),
            NotScalar::Failed(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for NotScalar {}

impl ser::Error for NotScalar {
    fn custom<T: Display>(message: T) -> NotScalar {
        NotScalar::Failed(NotFlat(message.to_string()))
    }
}

impl From<NotScalar> for NotFlat {
    fn from(e: NotScalar) -> NotFlat {
        match e {
            NotScalar::Compound => NotFlat("not a scalar".into()),
            NotScalar::Failed(e) => e,
        }
    }
}

/// A scalar as a list of scalars shows it: `null` (no leaf when the list is keyed by index) or
/// its text.
enum Scalar {
    Null,
    Text(String),
}

impl Scalar {
    fn shown(&self) -> &str {
        match self {
            Scalar::Null => "null",
            Scalar::Text(text) => text,
        }
    }
}

/// Serializes a value as a [`Scalar`], refusing compound ones: what decides a list's form, and
/// a map key's text, without building the value as a `serde_json::Value`.
struct ScalarText;

impl ScalarText {
    /// The scalar `serde_json` makes of `value`, for the kinds it formats in its own way
    /// (floats, 128-bit integers, bytes).
    fn as_json(value: &(impl Serialize + ?Sized)) -> Result<Scalar, NotScalar> {
        match serde_json::to_value(value).map_err(|e| NotScalar::Failed(e.into()))? {
            serde_json::Value::Null => Ok(Scalar::Null),
            serde_json::Value::String(s) => Ok(Scalar::Text(s)),
            serde_json::Value::Array(_) | serde_json::Value::Object(_) => Err(NotScalar::Compound),
            other => Ok(Scalar::Text(other.to_string())),
        }
    }
}

/// The methods of [`ScalarText`] that write a value's `to_string`.
macro_rules! scalar_to_string {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, v: $type) -> Result<Scalar, NotScalar> {
            Ok(Scalar::Text(v.to_string()))
        }
    )*};
}

/// The methods of [`ScalarText`] that refuse a compound value before it is read.
macro_rules! compound {
    ($($method:ident($($arg:ident: $type:ty),*) -> $kind:ident),*) => {$(
        fn $method(self, $(_: $type),*) -> Result<Self::$kind, NotScalar> {
            Err(NotScalar::Compound)
        }
    )*};
}

impl ser::Serializer for ScalarText {
    type Ok = Scalar;
    type Error = NotScalar;
    type SerializeSeq = ser::Impossible<Scalar, NotScalar>;
    type SerializeTuple = ser::Impossible<Scalar, NotScalar>;
    type SerializeTupleStruct = ser::Impossible<Scalar, NotScalar>;
    type SerializeTupleVariant = ser::Impossible<Scalar, NotScalar>;
    type SerializeMap = ser::Impossible<Scalar, NotScalar>;
    type SerializeStruct = ser::Impossible<Scalar, NotScalar>;
    type SerializeStructVariant = ser::Impossible<Scalar, NotScalar>;

    scalar_to_string!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_char: char,
        serialize_str: &str
    );
    compound!(
        serialize_seq(len: Option<usize>) -> SerializeSeq,
        serialize_tuple(len: usize) -> SerializeTuple,
        serialize_tuple_struct(name: &'static str, len: usize) -> SerializeTupleStruct,
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> SerializeTupleVariant,
        serialize_map(len: Option<usize>) -> SerializeMap,
        serialize_struct(name: &'static str, len: usize) -> SerializeStruct,
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize) -> SerializeStructVariant
    );
    fn serialize_i128(self, v: i128) -> Result<Scalar, NotScalar> {
        ScalarText::as_json(&v)
    }
    fn serialize_u128(self, v: u128) -> Result<Scalar, NotScalar> {
        ScalarText::as_json(&v)
    }
    fn serialize_f32(self, v: f32) -> Result<Scalar, NotScalar> {
        ScalarText::as_json(&v)
    }
    fn serialize_f64(self, v: f64) -> Result<Scalar, NotScalar> {
        ScalarText::as_json(&v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Scalar, NotScalar> {
        ScalarText::as_json(v)
    }
    fn serialize_none(self) -> Result<Scalar, NotScalar> {
        Ok(Scalar::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Scalar, NotScalar> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Scalar, NotScalar> {
        Ok(Scalar::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Scalar, NotScalar> {
        Ok(Scalar::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Scalar, NotScalar> {
        Ok(Scalar::Text(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Scalar, NotScalar> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Scalar, NotScalar> {
        Err(NotScalar::Compound)
    }
}

/// Serializes one value at `path`, pushing its leaves.
struct Leaves<'a> {
    path: &'a mut String,
    into: &'a mut Vec<(String, String)>,
}

impl<'a> Leaves<'a> {
    /// A scalar's leaf (`null` leaves none).
    fn put(self, scalar: Scalar) -> Result<(), NotFlat> {
        if let Scalar::Text(text) = scalar {
            self.into.push((self.path.clone(), text));
        }
        Ok(())
    }

    /// A value serde_json would build and this module does not walk itself.
    fn via_json(self, value: &(impl Serialize + ?Sized)) -> Result<(), NotFlat> {
        let value = serde_json::to_value(value)?;
        flatten_at(&value, self.path, self.into);
        Ok(())
    }

    fn fields(self) -> Fields<'a> {
        Fields { path: self.path, into: self.into, key: None, variant: None }
    }

    /// `{variant: {…}}`: the variant as one more key above the fields.
    fn variant(self, variant: &str) -> Fields<'a> {
        let len = self.path.len();
        push_key(self.path, variant);
        Fields { path: self.path, into: self.into, key: None, variant: Some(len) }
    }
}

/// `name` appended to `path` as `flatten` does: a dot first unless `path` is empty.
fn push_key(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(name);
}

/// Fields of a struct or map, each one key below the path.
struct Fields<'a> {
    path: &'a mut String,
    into: &'a mut Vec<(String, String)>,
    /// A map's key, between `serialize_key` and `serialize_value`.
    key: Option<String>,
    /// For a struct variant, the path's length before its variant's key.
    variant: Option<usize>,
}

impl Fields<'_> {
    fn field(&mut self, name: &str, value: &(impl Serialize + ?Sized)) -> Result<(), NotFlat> {
        let len = self.path.len();
        push_key(self.path, name);
        let result = value.serialize(Leaves { path: self.path, into: self.into });
        self.path.truncate(len);
        result
    }
}

/// A map key as `serde_json` makes one: a string, or a number or bool written as text.
fn key_text(key: &(impl Serialize + ?Sized)) -> Result<String, NotFlat> {
    match key.serialize(ScalarText) {
        Ok(Scalar::Text(text)) => Ok(text),
        Ok(Scalar::Null) | Err(NotScalar::Compound) => Err(NotFlat("a map key must be a string".into())),
        Err(NotScalar::Failed(e)) => Err(e),
    }
}

/// The methods of [`Leaves`] for scalars: a leaf of the text [`ScalarText`] gives them, so that
/// a setting and an element of a list of scalars are written alike.
macro_rules! scalar_leaves {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, v: $type) -> Result<(), NotFlat> {
            self.put(ScalarText.$method(v)?)
        }
    )*};
}

impl<'a> ser::Serializer for Leaves<'a> {
    type Ok = ();
    type Error = NotFlat;
    type SerializeSeq = Elements<'a>;
    type SerializeTuple = Elements<'a>;
    type SerializeTupleStruct = Elements<'a>;
    type SerializeTupleVariant = Elements<'a>;
    type SerializeMap = Fields<'a>;
    type SerializeStruct = Fields<'a>;
    type SerializeStructVariant = Fields<'a>;

    scalar_leaves!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_u128: u128, serialize_f32: f32, serialize_f64: f64, serialize_char: char, serialize_str: &str
    );
    fn serialize_bytes(self, v: &[u8]) -> Result<(), NotFlat> {
        self.via_json(v)
    }
    fn serialize_none(self) -> Result<(), NotFlat> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), NotFlat> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), NotFlat> {
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), NotFlat> {
        Ok(())
    }
    fn serialize_unit_variant(self, name: &'static str, index: u32, variant: &'static str) -> Result<(), NotFlat> {
        self.put(ScalarText.serialize_unit_variant(name, index, variant)?)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result<(), NotFlat> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), NotFlat> {
        let mut fields = self.fields();
        fields.field(variant, value)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Elements<'a>, NotFlat> {
        Ok(Elements::new(self.path, self.into, len.unwrap_or(0), None))
    }
    fn serialize_tuple(self, len: usize) -> Result<Elements<'a>, NotFlat> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Elements<'a>, NotFlat> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Elements<'a>, NotFlat> {
        let len_before = self.path.len();
        push_key(self.path, variant);
        Ok(Elements::new(self.path, self.into, len, Some(len_before)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Fields<'a>, NotFlat> {
        Ok(self.fields())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Fields<'a>, NotFlat> {
        Ok(self.fields())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Fields<'a>, NotFlat> {
        Ok(self.variant(variant))
    }
}

/// A sequence's elements, kept as `serde_json::Value`s until its end decides its form.
struct Elements<'a> {
    path: &'a mut String,
    into: &'a mut Vec<(String, String)>,
    /// The elements read while every one has been a scalar: one `[a, b]` value at the end.
    scalars: Vec<Scalar>,
    /// From the first compound element on: how many elements were read, each flattened under
    /// its index as it came.
    indexed: Option<usize>,
    /// For a tuple variant, the path's length before its variant's key.
    variant: Option<usize>,
}

impl<'a> Elements<'a> {
    fn new(path: &'a mut String, into: &'a mut Vec<(String, String)>, len: usize, variant: Option<usize>) -> Self {
        Elements { path, into, scalars: Vec::with_capacity(len), indexed: None, variant }
    }

    fn push(&mut self, value: &(impl Serialize + ?Sized)) -> Result<(), NotFlat> {
        let index = match self.indexed {
            Some(index) => index,
            None => match value.serialize(ScalarText) {
                Ok(scalar) => {
                    self.scalars.push(scalar);
                    return Ok(());
                }
                Err(NotScalar::Failed(e)) => return Err(e),
                Err(NotScalar::Compound) => {
                    // Keyed by index from here on, the scalars read before included (a `null`
                    // among them leaves nothing, as an absent value).
                    let scalars = std::mem::take(&mut self.scalars);
                    let index = scalars.len();
                    for (at, scalar) in scalars.into_iter().enumerate() {
                        self.at_index(at, |leaves| leaves.put(scalar))?;
                    }
                    index
                }
            },
        };
        self.indexed = Some(index + 1);
        self.at_index(index, |leaves| value.serialize(leaves))
    }

    /// Runs `flatten` with the path under element `index`.
    fn at_index(&mut self, index: usize, flatten: impl FnOnce(Leaves) -> Result<(), NotFlat>) -> Result<(), NotFlat> {
        let len = self.path.len();
        push_key(self.path, &index.to_string());
        let result = flatten(Leaves { path: self.path, into: self.into });
        self.path.truncate(len);
        result
    }

    fn finish(self) -> Result<(), NotFlat> {
        if self.indexed.is_none() {
            self.into.push((self.path.clone(), list_text(self.scalars.iter().map(Scalar::shown))));
        }
        if let Some(len) = self.variant {
            self.path.truncate(len);
        }
        Ok(())
    }
}

/// The four sequence traits serde has (sequence, tuple, tuple struct, tuple variant) take their
/// elements the same way here; only the method's name differs.
macro_rules! sequence_of_elements {
    ($($serde_trait:ident :: $method:ident),*) => {$(
        impl ser::$serde_trait for Elements<'_> {
            type Ok = ();
            type Error = NotFlat;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NotFlat> {
                self.push(value)
            }
            fn end(self) -> Result<(), NotFlat> {
                self.finish()
            }
        }
    )*};
}

sequence_of_elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Fields<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), NotFlat> {
        self.key = Some(key_text(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), NotFlat> {
        let key = self.key.take().ok_or_else(|| NotFlat("a map value without its key".into()))?;
        self.field(&key, value)
    }
    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<(), NotFlat> {
        self.field(name, value)
    }
    fn end(self) -> Result<(), NotFlat> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Fields<'_> {
    type Ok = ();
    type Error = NotFlat;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, name: &'static str, value: &T) -> Result<(), NotFlat> {
        self.field(name, value)
    }
    fn end(self) -> Result<(), NotFlat> {
        if let Some(len) = self.variant {
            self.path.truncate(len);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    /// What `flatten_value` replaces: the value built as JSON, then flattened.
    fn through_json(value: &impl Serialize, prefix: &str) -> Vec<(String, String)> {
        let mut into = Vec::new();
        if let Ok(json) = serde_json::to_value(value) {
            flatten_at(&json, &mut prefix.to_string(), &mut into);
        }
        into.sort();
        into
    }

    fn flattened(value: &impl Serialize, prefix: &str) -> Vec<(String, String)> {
        let mut into = Vec::new();
        flatten_value(value, prefix, &mut into);
        into.sort();
        into
    }

    #[derive(Serialize)]
    enum Mode {
        Off,
        Rate(u32),
        Pair(u8, String),
        Shaped { rate: f64, burst: Option<u64> },
    }

    #[derive(Serialize)]
    struct Inner {
        tsa: &'static str,
        bw: u8,
    }

    #[derive(Serialize)]
    struct Port {
        trust: Option<String>,
        alias: Option<String>,
        pfc: Vec<u8>,
        off: Vec<u8>,
        mixed: Vec<Option<Inner>>,
        tcs: Vec<Inner>,
        dscp_to_tc: BTreeMap<u8, u8>,
        by_name: BTreeMap<String, Inner>,
        modes: Vec<Mode>,
        mode: Mode,
        shaped: Mode,
        off_mode: Mode,
        pair: Mode,
        ratio: f64,
        not_a_number: f64,
        whole: f32,
        negative: i64,
        flag: bool,
        letter: char,
        nothing: (),
        bytes: serde_bytes_like::Bytes,
        tuple: (u8, &'static str),
        big: u128,
        lists: Vec<Vec<u8>>,
        nulls: Vec<Option<u8>>,
        scalar_then_list: Vec<Mode>,
        words: Vec<&'static str>,
        floats: Vec<f64>,
        keyed_by_mode: BTreeMap<Key, u8>,
    }

    #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
    enum Key {
        Low,
        High,
    }

    /// `serialize_bytes`, as serde_bytes would call it.
    mod serde_bytes_like {
        pub struct Bytes(pub Vec<u8>);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }

    fn port() -> Port {
        Port {
            trust: Some("dscp".into()),
            alias: None,
            pfc: vec![3],
            off: vec![],
            mixed: vec![None, Some(Inner { tsa: "strict", bw: 0 })],
            tcs: vec![Inner { tsa: "ets", bw: 50 }, Inner { tsa: "ets", bw: 50 }],
            dscp_to_tc: [(26, 3), (48, 6)].into(),
            by_name: [("a.b".to_string(), Inner { tsa: "vendor", bw: 1 })].into(),
            modes: vec![Mode::Off, Mode::Rate(7)],
            mode: Mode::Rate(100),
            shaped: Mode::Shaped { rate: 2.5, burst: None },
            off_mode: Mode::Off,
            pair: Mode::Pair(1, "x".into()),
            ratio: 0.1,
            not_a_number: f64::NAN,
            whole: 2.0,
            negative: -4,
            flag: true,
            letter: 'é',
            nothing: (),
            bytes: serde_bytes_like::Bytes(vec![1, 2]),
            tuple: (1, "one"),
            big: u128::from(u64::MAX) + 1,
            lists: vec![vec![1, 2], vec![]],
            nulls: vec![None, Some(3), None],
            scalar_then_list: vec![
                Mode::Off,
                Mode::Pair(2, "y".into()),
                Mode::Off,
                Mode::Shaped { rate: 1.5, burst: Some(9) },
            ],
            words: vec!["a b", "c\"d"],
            floats: vec![1.0, f64::NAN, 0.25],
            keyed_by_mode: [(Key::Low, 1), (Key::High, 2)].into(),
        }
    }

    /// Every shape a configuration value can take gives the leaves building it as JSON gave:
    /// nested structs, maps with number keys, enums of every kind, lists of scalars and of
    /// structs, floats (a NaN leaves nothing), absent values, under a prefix and without.
    #[test]
    fn every_shape_gives_the_leaves_the_json_value_gave() {
        let mut small = port();
        small.big = 5;
        for prefix in ["", "mlnx_qos"] {
            assert_eq!(flattened(&small, prefix), through_json(&small, prefix), "prefix {prefix:?}");
        }
        let leaves = flattened(&small, "");
        let get = |k: &str| leaves.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
        assert_eq!(get("pfc"), Some("[3]"));
        assert_eq!(get("dscp_to_tc.26"), Some("3"));
        assert_eq!(get("shaped.Shaped.rate"), Some("2.5"));
        assert_eq!(get("mixed.1.tsa"), Some("strict"));
        assert_eq!(get("mode.Rate"), Some("100"));
        assert_eq!(get("off_mode"), Some("Off"));
        assert_eq!(get("whole"), Some("2.0"));
        assert_eq!(get("not_a_number"), None);
        assert_eq!(get("alias"), None);
        assert_eq!(get("lists.0"), Some("[1, 2]"));
        assert_eq!(get("lists.1"), Some("[]"));
        assert_eq!(get("nulls"), Some("[null, 3, null]"));
        assert_eq!(get("scalar_then_list.0"), Some("Off"));
        assert_eq!(get("scalar_then_list.1.Pair"), Some("[2, y]"));
        assert_eq!(get("floats"), Some("[1.0, null, 0.25]"));
        assert_eq!(get("keyed_by_mode.High"), Some("2"));
    }

    /// A value JSON cannot hold (a 128-bit integer beyond 64 bits) leaves nothing at all, as
    /// before, not the part serialized before it; what was there before stays.
    #[test]
    fn a_value_json_cannot_hold_leaves_nothing() {
        let mut into = vec![("kept".to_string(), "1".to_string())];
        flatten_value(&port(), "", &mut into);
        assert_eq!(into, [("kept".to_string(), "1".to_string())]);
        assert!(through_json(&port(), "").is_empty());
    }
}
