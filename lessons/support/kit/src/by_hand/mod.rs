//! The by-hand tools: `deliver`, which feeds a lesson's handler events as JSON lines against the
//! development database, and the JSON envelope the saga's events travel in.

pub mod deliver;
pub mod envelope;
