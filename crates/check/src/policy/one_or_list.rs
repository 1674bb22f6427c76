//! Policy keys that take one value or a list of them.

/// A key a policy may give one value or a list of values (`dscp: 26`, `dscp: [24, 26]`). Read by
/// hand rather than as a `#[serde(untagged)]` enum, whose error names the Rust type
/// (`data did not match any variant of untagged enum OneOrMany`): here a wrong value says what
/// the key expects in the policy's terms, the line and column added by the YAML reader.
pub(super) enum OneOrList<T> {
    One(T),
    List(Vec<T>),
}

impl<T: PolicyScalar> OneOrList<T> {
    /// Reads one value or a list; `expected` is what errors say the key takes.
    pub(super) fn deserialize<'de, D: serde::Deserializer<'de>>(
        d: D,
        expected: &'static str,
    ) -> Result<Self, D::Error> {
        d.deserialize_any(OneOrListVisitor { expected, in_list: false, value: std::marker::PhantomData })
    }

    pub(super) fn into_vec(self) -> Vec<T> {
        match self {
            OneOrList::One(v) => vec![v],
            OneOrList::List(v) => v,
        }
    }
}

/// A value a [`OneOrList`] holds, from a YAML integer or string (`None`: not that kind of value).
pub(super) trait PolicyScalar: Sized {
    fn from_integer(v: u64) -> Option<Self>;
    fn from_text(v: &str) -> Option<Self>;
}

impl PolicyScalar for u8 {
    fn from_integer(v: u64) -> Option<u8> {
        u8::try_from(v).ok()
    }
    fn from_text(_: &str) -> Option<u8> {
        None
    }
}

impl PolicyScalar for String {
    fn from_integer(_: u64) -> Option<String> {
        None
    }
    fn from_text(v: &str) -> Option<String> {
        Some(v.to_string())
    }
}

/// Reads a [`OneOrList`]; `in_list`: an element of the list, which may not be a list itself.
struct OneOrListVisitor<T> {
    expected: &'static str,
    in_list: bool,
    value: std::marker::PhantomData<T>,
}

impl<'de, T: PolicyScalar> serde::de::Visitor<'de> for OneOrListVisitor<T> {
    type Value = OneOrList<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.expected)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        T::from_integer(v)
            .map(OneOrList::One)
            .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(v), &self)),
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        T::from_text(v).map(OneOrList::One).ok_or_else(|| E::invalid_type(serde::de::Unexpected::Str(v), &self))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if self.in_list {
            return Err(serde::de::Error::invalid_type(serde::de::Unexpected::Seq, &self));
        }
        let mut values = Vec::new();
        let element = || OneOrListVisitor { expected: self.expected, in_list: true, value: std::marker::PhantomData };
        while let Some(one) = seq.next_element_seed(element())? {
            values.extend(one.into_vec());
        }
        Ok(OneOrList::List(values))
    }
}

impl<'de, T: PolicyScalar> serde::de::DeserializeSeed<'de> for OneOrListVisitor<T> {
    type Value = OneOrList<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}
