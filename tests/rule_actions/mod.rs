//! Helpers shared by the action tests of the rule sets that run on
//! typed actions (included with `mod`).

#![allow(dead_code, reason = "each test file uses a different part")]

use spotter::core::RefusalKind;
use spotter::game::{Command, Event, Figure, GameState};
use spotter::rules::dice::TypedDice;
use spotter::rules::{RuleError, RuleSet};

/// Resolves `c` with the typed dice, checks every die was used, and
/// returns the state after the events and the events.
pub fn run(
    rules: &dyn RuleSet,
    s: &GameState,
    c: &Command,
    faces: &[u32],
) -> (GameState, Vec<Event>) {
    let mut dice = TypedDice::new(faces.iter().copied());
    let ev = rules.resolve(s, c, &mut dice).expect("resolves");
    assert_eq!(dice.remaining(), 0, "every typed die is used: {ev:#?}");
    let mut after = s.clone();
    for e in &ev {
        after.apply(e);
    }
    (after, ev)
}

/// The figure called `n`.
pub fn named<'a>(s: &'a GameState, n: &str) -> &'a Figure {
    s.figure_named(n).expect(n)
}

/// Why the rules refuse `c` with a refusal of `kind` (panics when they
/// allow it, refuse it for another kind of rule, or fail otherwise).
pub fn refused(rules: &dyn RuleSet, s: &GameState, c: &Command, kind: RefusalKind) -> String {
    match rules.check(s, c) {
        Err(RuleError::Refused(r)) if r.kind == kind => {
            assert_eq!(r.rule_set, rules.name(), "refused by its own rule set");
            r.why
        }
        other => panic!("expected a {kind:?} refusal, got {other:?}"),
    }
}
