//! The Soldiers in Time events that no other rule set has, as Rust types.
//! Serialised inside the game's event (`"event": "soldiers-in-time"`) with
//! the kind in `what`.

use serde::{Deserialize, Serialize};

use super::status::{Ammo, FigureStatus, FirstSide, LeaveCheck, Order, Ordered};
use crate::core::FigureId;
use crate::rules::GameState;

/// One Soldiers in Time event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Event {
    /// A figure fired its musket (aimed, or a snap shot): it must reload
    /// before the next shot, and it counts against his shots this turn
    /// (6.1). No aim, no ammunition: those are Stand To!'s.
    Fired {
        figure: FigureId,
        target: FigureId,
        snap: bool,
    },
    /// He rolled his reload d10 this turn; `loaded`: it came up, and he
    /// stays loaded for this or a later shooting phase (6.2).
    Reloaded {
        figure: FigureId,
        turn: u32,
        loaded: bool,
    },
    /// The figures are under this order for the turn (a passed or failed
    /// activation card).
    Ordered {
        figures: Vec<FigureId>,
        order: Order,
        passed: bool,
        by: Option<FigureId>,
        /// Follow Him away from the enemy (5.2).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        away: bool,
    },
    /// His order is over (the turn ended, or the leader of an independent
    /// fire order fell).
    OrderEnded { figure: FigureId },
    /// Failed morale: he routs.
    Routed { figure: FigureId },
    /// He rallied in the rally phase.
    Rallied { figure: FigureId },
    /// He leaves the battle (failed to rally).
    Removed { figure: FigureId, reason: String },
    /// He charges this turn, the `run`-th turn running.
    Charged {
        figure: FigureId,
        turn: u32,
        run: u32,
    },
    /// The turn after the charge: the charging modifiers are gone.
    ChargeSpent { figure: FigureId },
    /// He moved `moved_in` inches in `turn`.
    MovedThisTurn {
        figure: FigureId,
        turn: u32,
        moved_in: f64,
    },
    /// A gun's marker is placed face down.
    GunLoaded { figure: FigureId, ammo: Ammo },
    /// A gun fired: its marker is taken off.
    GunFired { figure: FigureId },
    /// One grenade fewer.
    GrenadeThrown { figure: FigureId },
    /// The card flip of a phase: `side` goes first.
    FirstSide(FirstSide),
    /// 11: a hit exposed these hidden figures within 2 in of it: no
    /// hidden +2 for them up to `until_turn`.
    Exposed {
        figures: Vec<FigureId>,
        until_turn: u32,
    },
    /// 9: his gun took `damage` against its hit points.
    WeaponDamaged { figure: FigureId, damage: u32 },
    /// `a` and `b` fought a melee in `turn`.
    Fought { a: FigureId, b: FigureId, turn: u32 },
    /// 5.5: his activation check to leave a melee this turn.
    LeaveChecked {
        figure: FigureId,
        turn: u32,
        passed: bool,
    },
    /// 11: he tried to spot a hidden enemy this turn (once a turn).
    SpotChecked { figure: FigureId, turn: u32 },
}

impl Event {
    /// The event's change to the state.
    pub fn apply(&self, state: &mut GameState) {
        match self {
            Self::Fired { figure, .. } => {
                let turn = state.turn;
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.loaded = false;
                }
                status(state, *figure, |s| {
                    if s.shots_turn != Some(turn) {
                        s.shots_fired = 0;
                    }
                    s.shots_turn = Some(turn);
                    s.shots_fired += 1;
                });
            }
            Self::Reloaded {
                figure,
                turn,
                loaded,
            } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.loaded |= *loaded;
                }
                status(state, *figure, |s| s.reload_turn = Some(*turn));
            }
            Self::Ordered {
                figures,
                order,
                passed,
                by,
                away,
            } => {
                for id in figures {
                    status(state, *id, |s| {
                        s.order = Some(Ordered {
                            order: *order,
                            passed: *passed,
                            by: *by,
                            away: *away,
                        });
                    });
                }
            }
            Self::FirstSide(first) => {
                state.rules.soldiers_in_time_mut().first = Some(*first);
            }
            Self::Fought { a, b, turn } => {
                for (me, them) in [(*a, *b), (*b, *a)] {
                    status(state, me, |s| {
                        if s.fought_turn != Some(*turn) {
                            s.fought_with.clear();
                        }
                        s.fought_turn = Some(*turn);
                        s.fought_with.push(them);
                    });
                }
            }
            Self::Exposed {
                figures,
                until_turn,
            } => {
                for id in figures {
                    status(state, *id, |s| s.exposed_until = Some(*until_turn));
                }
            }
            other => {
                if let Some(id) = other.figure() {
                    status(state, id, |s| other.apply_to(s));
                }
            }
        }
    }

    /// The one figure a status event is about.
    fn figure(&self) -> Option<FigureId> {
        match self {
            Self::OrderEnded { figure }
            | Self::Routed { figure }
            | Self::Rallied { figure }
            | Self::Removed { figure, .. }
            | Self::Charged { figure, .. }
            | Self::ChargeSpent { figure }
            | Self::MovedThisTurn { figure, .. }
            | Self::GunLoaded { figure, .. }
            | Self::GunFired { figure }
            | Self::GrenadeThrown { figure }
            | Self::WeaponDamaged { figure, .. }
            | Self::LeaveChecked { figure, .. }
            | Self::SpotChecked { figure, .. } => Some(*figure),
            _ => None,
        }
    }

    fn apply_to(&self, s: &mut FigureStatus) {
        match self {
            Self::OrderEnded { .. } => s.order = None,
            Self::Routed { .. } => s.routed = true,
            Self::Rallied { .. } => s.routed = false,
            Self::Removed { reason, .. } => s.removed = Some(reason.clone()),
            Self::Charged { turn, run, .. } => {
                s.charging = true;
                s.charge_turns = *run;
                s.charged_turn = Some(*turn);
            }
            Self::ChargeSpent { .. } => s.charging = false,
            Self::MovedThisTurn { turn, moved_in, .. } => {
                s.moved_turn = Some(*turn);
                s.moved_in = *moved_in;
            }
            Self::GunLoaded { ammo, .. } => s.loaded_with = Some(*ammo),
            Self::GunFired { .. } => s.loaded_with = None,
            Self::GrenadeThrown { .. } => s.grenades = s.grenades.saturating_sub(1),
            Self::WeaponDamaged { damage, .. } => {
                s.weapon_damage = s.weapon_damage.saturating_add(*damage);
            }
            Self::LeaveChecked { turn, passed, .. } => {
                s.leave_check = Some(LeaveCheck {
                    turn: *turn,
                    passed: *passed,
                });
            }
            Self::SpotChecked { turn, .. } => s.spot_turn = Some(*turn),
            _ => {}
        }
    }
}

fn status(state: &mut GameState, id: FigureId, change: impl FnOnce(&mut FigureStatus)) {
    if let Some(f) = state.figures.get_mut(id.index()) {
        change(f.rules.soldiers_in_time_mut());
    }
}
