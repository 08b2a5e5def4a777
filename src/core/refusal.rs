//! Typed refusals: why the rules do not allow an action now.
//!
//! A refusal says which rule set refused, which figure it is about (when
//! one is), what kind of rule it is ([`RefusalKind`], for code and tests to
//! match) and a sentence for the player that names the numbers ("Pte Carter
//! may move 6 in at this pace; the path costs 7.2 in"). A parameter the
//! rule set cannot read is not a refusal: it is a different error of the
//! rule set (`RuleError::BadParams`).

use super::ids::FigureId;

/// What kind of rule forbids the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefusalKind {
    /// The action belongs to another phase of the turn.
    WrongPhase,
    /// The figure or unit belongs to the side whose turn it is not.
    NotYourTurn,
    /// The figure or unit is out of the fight (killed, down, routed, idle,
    /// nobody left).
    OutOfTheFight,
    /// The figure or unit has already done this (fired, moved, acted on the
    /// card, given its order) as often as the rules allow.
    AlreadyActed,
    /// The target is beyond the weapon's or the rule's reach.
    OutOfRange,
    /// The target cannot be seen.
    OutOfSight,
    /// The target is outside the arc or cone.
    OutOfArc,
    /// The weapon is not loaded (or loaded with the wrong thing).
    NotLoaded,
    /// The target is on the firer's own side, or not a target at all.
    NotAnEnemy,
    /// The figure, its weapon or its troop type cannot do this at all.
    CannotDo,
    /// The move is longer than the allowance, or has too many turns.
    TooFar,
    /// A point of the move is off the table.
    OffTable,
    /// The figures are not in contact (or too far apart for melee).
    NotInContact,
    /// Being in melee forbids it.
    Engaged,
    /// Morale forbids it (shaken, demoralised, not routed where it must be).
    Morale,
    /// It needs an order, an activation or a leader that it does not have.
    NoOrder,
    /// The figure is outside its leader's command radius.
    OutOfCommand,
    /// The cards do not allow it (no card in play, empty deck, not held).
    Cards,
    /// An obstacle or the mount's speed rules forbid the move.
    Movement,
    /// The command itself is not well formed for the rules (an empty path,
    /// the wrong number of figures, two targets named).
    Malformed,
    /// The command names something the rule set's tables do not have (a
    /// formation, an order, a morale table, a speed).
    NotInTables,
}

/// A typed refusal of an action by a rule set.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{why}")]
pub struct Refusal {
    /// The registry name of the rule set that refused.
    pub rule_set: &'static str,
    /// The figure the refusal is about, when it is about one.
    pub figure: Option<FigureId>,
    pub kind: RefusalKind,
    /// The sentence for the player, with the numbers that decided it.
    pub why: String,
}

impl Refusal {
    /// A refusal of `kind` by `rule_set`, explained by `why`.
    pub fn new(rule_set: &'static str, kind: RefusalKind, why: impl Into<String>) -> Self {
        Self {
            rule_set,
            figure: None,
            kind,
            why: why.into(),
        }
    }

    /// The refusal is about this figure.
    #[must_use]
    pub fn by(mut self, figure: FigureId) -> Self {
        self.figure = Some(figure);
        self
    }
}
