//! The lessons, as the workbook's one catalog lists them (lessons/support/catalog). The runner
//! never links an exercise (a student's exercise that does not compile must not break the front
//! door): it reads the list and runs each exercise's tests with cargo.

pub use catalog::{KAFKA_TRACK, LESSONS, Lesson, find, kafka_code, sync};
