//! Helpers the figure-by-figure rule sets share (Soldiers in Time, Little
//! Colonial Rules): looking figures up, phase checks, and a working copy of
//! the state that records every roll and card as an event while an action
//! resolves.
//!
//! # Conventions
//! Figures are named by their scenario names. A [`Work`] starts from the
//! state a command sees; each event pushed is applied to its copy at once,
//! so later steps of the same action (a morale check after a kill, the
//! next card of a deck) see the earlier ones. The events come back in the
//! order they were pushed; applying them to the original state gives the
//! copy's state.

use std::collections::BTreeMap;

use super::RuleError;
use crate::core::dice::{Dice, DieRoll};
use crate::core::{Refusal, RefusalKind};
use crate::geometry::{RangeMethod, range_in};
use crate::rules::{Event, Figure, FigureId, GameState};

/// `house` tables of rule-set data files: value name -> where it comes from.
pub type House = BTreeMap<String, String>;

/// The rule set `rule_set` forbids the command now, for a rule of `kind`.
pub fn refusal(rule_set: &'static str, kind: RefusalKind, why: impl Into<String>) -> RuleError {
    RuleError::Refused(Refusal::new(rule_set, kind, why))
}

/// A figure by scenario name.
pub fn figure<'a>(state: &'a GameState, name: &str) -> Result<&'a Figure, RuleError> {
    state.figure_named(name).ok_or(RuleError::Unknown {
        what: "figure",
        name: name.to_owned(),
    })
}

/// Base edge to base edge, table inches.
pub fn edge_gap_in(a: &Figure, b: &Figure) -> f64 {
    range_in(&a.placement, &b.placement, RangeMethod::EdgeToEdge).value_in
}

/// Centre to centre, table inches.
pub fn centre_gap_in(a: &Figure, b: &Figure) -> f64 {
    (a.placement.center_in_table - b.placement.center_in_table).norm()
}

/// The name of the current phase.
pub fn phase_name<'a>(phases: &'a [String], state: &GameState) -> &'a str {
    phases.get(state.phase).map_or("?", String::as_str)
}

/// The action is allowed only in one of `allowed` phases of the turn.
pub fn require_phase(
    rule_set: &'static str,
    phases: &[String],
    state: &GameState,
    action: &str,
    allowed: &[&str],
) -> Result<(), RuleError> {
    let now = phase_name(phases, state);
    if allowed.contains(&now) {
        Ok(())
    } else {
        Err(refusal(
            rule_set,
            RefusalKind::WrongPhase,
            format!(
                "`{action}` belongs to the {} phase; this is the {now} phase (end the phase to move on)",
                allowed.join(" or ")
            ),
        ))
    }
}

/// Every point a command sends a figure or a unit to must be on the table:
/// a point far off it (1e308) would roll the dice and move nothing.
pub fn require_on_table(
    rule_set: &'static str,
    state: &GameState,
    points: impl IntoIterator<Item = [f64; 2]>,
) -> Result<(), RuleError> {
    match points
        .into_iter()
        .find(|p| !state.on_table(nalgebra::Point2::new(p[0], p[1])))
    {
        None => Ok(()),
        Some(p) => Err(refusal(
            rule_set,
            RefusalKind::OffTable,
            format!(
                "({}, {}) is off the table ({} x {} in): give a point on it",
                p[0], p[1], state.table.width_in, state.table.depth_in
            ),
        )),
    }
}

/// The figure must belong to the side whose turn it is.
pub fn require_active_side(
    rule_set: &'static str,
    state: &GameState,
    f: &Figure,
) -> Result<(), RuleError> {
    if f.side == state.active_side {
        Ok(())
    } else {
        let side = |i: usize| state.sides.get(i).map_or("?", |s| s.name.as_str());
        Err(refusal(
            rule_set,
            RefusalKind::NotYourTurn,
            format!(
                "{} belongs to {}; it is {}'s turn",
                f.name,
                side(f.side),
                side(state.active_side)
            ),
        )
        .by(f.id))
    }
}

/// A working copy of the state and the events of an action so far.
#[derive(Debug, Clone)]
pub struct Work {
    pub now: GameState,
    pub ev: Vec<Event>,
}

impl Work {
    pub fn new(state: &GameState) -> Self {
        Self {
            now: state.clone(),
            ev: Vec::new(),
        }
    }

    /// Records an event and applies it to the copy.
    pub fn push(&mut self, e: Event) {
        self.now.apply(&e);
        self.ev.push(e);
    }

    /// A note for the player.
    pub fn note(&mut self, text: impl Into<String>) {
        self.push(Event::Note { text: text.into() });
    }

    /// Rolls `n` d`sides` and records them.
    pub fn roll(
        &mut self,
        dice: &mut dyn Dice,
        n: usize,
        sides: u32,
        purpose: impl Into<String>,
        figure: Option<FigureId>,
    ) -> Result<Vec<DieRoll>, RuleError> {
        let rolls = dice.roll_n(n, sides)?;
        self.push(Event::Rolled {
            purpose: purpose.into(),
            figure,
            dice: rolls.clone(),
        });
        Ok(rolls)
    }

    /// Rolls one die and records it; returns its face.
    pub fn roll1(
        &mut self,
        dice: &mut dyn Dice,
        sides: u32,
        purpose: impl Into<String>,
        figure: Option<FigureId>,
    ) -> Result<u32, RuleError> {
        Ok(self.roll(dice, 1, sides, purpose, figure)?[0].face)
    }

    /// A figure of the working copy (it exists: ids come from the state).
    pub fn fig(&self, id: FigureId) -> Result<&Figure, RuleError> {
        self.now.figure(id).ok_or(RuleError::Unknown {
            what: "figure",
            name: format!("#{}", id.0),
        })
    }

    /// The events, in order.
    pub fn into_events(self) -> Vec<Event> {
        self.ev
    }
}

/// Reads one scenario `status` table (a figure's, a unit's or a side's)
/// into typed values, key by key, for every rule set alike. Each reader
/// method marks its key as known; [`StatusReader::finish`] refuses the
/// keys no method asked for. Every error names the rule set, the key and
/// the value, and says what to write instead.
///
/// # Conventions
/// Values are trimmed. Flags are `true`, `false`, `yes` or `no` (any
/// case); numbers are whole numbers unless a method says otherwise; lists
/// are comma-separated.
#[derive(Debug)]
pub struct StatusReader<'a> {
    raw: &'a super::Status,
    rule_set: &'static str,
    /// `figure`, `unit` or `side`.
    of: &'static str,
    known: Vec<&'static str>,
    hint: Option<String>,
}

impl<'a> StatusReader<'a> {
    /// A reader of `rule_set`'s `of` (figure, unit, side) status table.
    pub fn new(rule_set: &'static str, of: &'static str, raw: &'a super::Status) -> Self {
        Self {
            raw,
            rule_set,
            of,
            known: Vec::new(),
            hint: None,
        }
    }

    /// This reader, adding `hint` to the error about unknown keys.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The trimmed value of `key`, if the table has it (`key` is known
    /// from now on).
    pub fn raw(&mut self, key: &'static str) -> Option<&'a str> {
        if !self.known.contains(&key) {
            self.known.push(key);
        }
        self.raw.get(key).map(|v| v.trim())
    }

    /// The error for `key`'s value: what it is, and `want`, what to write.
    pub fn bad(&self, key: &str, want: &str) -> String {
        let value = self.raw.get(key).map_or("", |v| v.as_str());
        format!(
            "{} {} status `{key}` = \"{value}\": write {want}",
            self.rule_set, self.of
        )
    }

    /// `key`'s value read by `parse` (`None` from it: write `want`).
    pub fn value<T>(
        &mut self,
        key: &'static str,
        want: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, String> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => parse(v).map(Some).ok_or_else(|| self.bad(key, want)),
        }
    }

    /// A yes/no value: `true`, `false`, `yes` or `no`.
    pub fn flag(&mut self, key: &'static str) -> Result<Option<bool>, String> {
        self.value(key, "true, false, yes or no", |v| {
            match v.to_ascii_lowercase().as_str() {
                "true" | "yes" => Some(true),
                "false" | "no" => Some(false),
                _ => None,
            }
        })
    }

    /// A whole number (of the type `T` holds: `u32`, `usize` ...).
    pub fn number<T: std::str::FromStr>(&mut self, key: &'static str) -> Result<Option<T>, String> {
        self.value(key, "a whole number, 0 or more", |v| v.parse().ok())
    }

    /// One of the `allowed` words.
    pub fn word(&mut self, key: &'static str, allowed: &[&str]) -> Result<Option<&'a str>, String> {
        let want = one_of(allowed.iter().copied());
        match self.raw(key) {
            Some(v) if !allowed.contains(&v) => Err(self.bad(key, &want)),
            v => Ok(v),
        }
    }

    /// The value named by one of the `choices` (name, value).
    pub fn choice<T: Copy>(
        &mut self,
        key: &'static str,
        choices: &[(&str, T)],
    ) -> Result<Option<T>, String> {
        let want = one_of(choices.iter().map(|(name, _)| *name));
        self.value(key, &want, |v| {
            choices.iter().find(|(name, _)| *name == v).map(|c| c.1)
        })
    }

    /// A text that is not empty (a figure's name ...): `want` says what.
    pub fn text(&mut self, key: &'static str, want: &str) -> Result<Option<&'a str>, String> {
        match self.raw(key) {
            Some("") => Err(self.bad(key, want)),
            v => Ok(v),
        }
    }

    /// A comma-separated list of numbers (`want`: what the list is).
    pub fn list<T: std::str::FromStr>(
        &mut self,
        key: &'static str,
        want: &str,
    ) -> Result<Option<Vec<T>>, String> {
        self.value(key, want, |v| {
            v.split(',').map(|x| x.trim().parse().ok()).collect()
        })
    }

    /// Done: every key of the table must have been read. An unknown key is
    /// an error naming it and the known ones.
    pub fn finish(self) -> Result<(), String> {
        let unknown: Vec<String> = self
            .raw
            .keys()
            .filter(|k| !self.known.contains(&k.as_str()))
            .map(|k| format!("`{k}`"))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let mut msg = format!(
            "{} keeps no {} status {}: ",
            self.rule_set,
            self.of,
            unknown.join(", ")
        );
        if self.known.is_empty() {
            msg.push_str("remove it (it keeps none)");
        } else {
            msg.push_str(&format!(
                "remove it, or use {}",
                one_of(self.known.iter().copied())
            ));
        }
        if let Some(hint) = &self.hint {
            msg.push_str(&format!("; {hint}"));
        }
        Err(msg)
    }
}

/// A list of words as a sentence says it: `a`, `a or b`, `a, b or c`.
pub fn one_of<'s>(words: impl Iterator<Item = &'s str>) -> String {
    let words: Vec<&str> = words.collect();
    match words.split_last() {
        None => "nothing".to_owned(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// A scenario `status` table from key and value pairs (tests of the rule
/// sets' status readers).
#[cfg(test)]
pub(crate) fn raw_status(pairs: &[(&str, &str)]) -> super::Status {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_reads_every_spelling_and_refuses_others_saying_what_to_write() {
        for (v, want) in [
            ("true", true),
            ("false", false),
            ("yes", true),
            ("no", false),
            (" Yes ", true),
        ] {
            let raw = raw_status(&[("green", v)]);
            let mut r = StatusReader::new("Stand To!", "side", &raw);
            assert_eq!(r.flag("green"), Ok(Some(want)), "{v}");
            assert_eq!(r.finish(), Ok(()));
        }
        let raw = raw_status(&[("green", "maybe")]);
        let e = StatusReader::new("Stand To!", "side", &raw)
            .flag("green")
            .unwrap_err();
        assert_eq!(
            e,
            "Stand To! side status `green` = \"maybe\": write true, false, yes or no"
        );
    }

    #[test]
    fn a_bad_number_names_the_key_and_the_value() {
        let raw = raw_status(&[("armour", "heavy")]);
        let e = StatusReader::new("Soldiers in Time", "figure", &raw)
            .number::<u32>("armour")
            .unwrap_err();
        assert!(e.contains("`armour` = \"heavy\""), "{e}");
        assert!(e.contains("write a whole number"), "{e}");
        let raw = raw_status(&[("armour", "3")]);
        let mut r = StatusReader::new("Soldiers in Time", "figure", &raw);
        assert_eq!(r.number::<u32>("armour"), Ok(Some(3)));
        assert_eq!(r.number::<u32>("grenades"), Ok(None));
    }

    #[test]
    fn an_unknown_key_is_named_with_the_known_ones() {
        let raw = raw_status(&[("armor", "3"), ("flag", "no")]);
        let mut r = StatusReader::new("Soldiers in Time", "figure", &raw);
        r.number::<u32>("armour").unwrap();
        r.flag("flag").unwrap();
        assert_eq!(
            r.finish().unwrap_err(),
            "Soldiers in Time keeps no figure status `armor`: remove it, or use armour or flag"
        );
        let e = StatusReader::new("Little Colonial Rules", "unit", &raw)
            .finish()
            .unwrap_err();
        assert!(
            e.contains("`armor`, `flag`") && e.contains("keeps none"),
            "{e}"
        );
    }

    #[test]
    fn words_choices_texts_and_lists_say_what_they_take() {
        let raw = raw_status(&[("colour", "green"), ("chits", "1, 2,x"), ("crew", " ")]);
        let mut r = StatusReader::new("Soldiers in Time", "side", &raw);
        let e = r.choice("colour", &[("red", 1), ("black", 2)]).unwrap_err();
        assert!(e.ends_with("write red or black"), "{e}");
        let e = r.word("colour", &["a", "b", "c"]).unwrap_err();
        assert!(e.ends_with("write a, b or c"), "{e}");
        assert!(r.list::<u32>("chits", "numbers").is_err());
        assert!(
            r.text("crew", "the gun's name")
                .unwrap_err()
                .contains("the gun's name")
        );
        assert_eq!(r.finish(), Ok(()));
    }
}
