#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| eraflow::fuzzing::slim_receipts(data));
