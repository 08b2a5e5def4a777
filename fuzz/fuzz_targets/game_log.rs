//! A game log (`games/*.jsonl`): the bytes are written as a log and the
//! game resumed from it, with its repair of damaged lines. A log that
//! resumes must read back, to the same state, with nothing more to repair.
#![no_main]

use std::path::PathBuf;

use spotter::game::Game;
use spotter::rules::Registry;

struct Place {
    registry: Registry,
    dir: tempfile::TempDir,
}

thread_local! {
    static PLACE: Place = Place {
        registry: Registry::builtin().expect("the built-in rule sets load"),
        dir: tempfile::tempdir().expect("a temporary folder"),
    };
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    PLACE.with(|place| {
        // A clean folder each time: the repair keeps damaged copies beside it.
        for entry in std::fs::read_dir(place.dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let _ = std::fs::remove_file(entry.path());
        }
        let path: PathBuf = place.dir.path().join("game.jsonl");
        std::fs::write(&path, data).expect("the log is written");
        if let Ok(game) = Game::resume(&path, &place.registry) {
            let state = game.state().clone();
            drop(game);
            let again = Game::resume(&path, &place.registry).expect("a repaired log resumes");
            assert!(again.repair().is_none(), "{:?}", again.repair());
            assert_eq!(
                again.state(),
                &state,
                "the repaired log replays to the same state"
            );
        }
    });
});
