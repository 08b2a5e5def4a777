//! The Stand To! events that no other rule set has, as Rust types.
//! Serialised inside the game's event (`"event": "stand-to"`) with the kind
//! in `what`. Each changes the figure's or side's typed
//! [`super::status`] state (and the shared fields the event names).

use serde::{Deserialize, Serialize};

use super::Wound;
use super::action::{AimUse, FireMode};
use super::status::{MountHeld, own_turn};
use crate::core::FigureId;
use crate::rules::{GameState, ObstacleStage};

/// One Stand To! event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Event {
    /// The figure spent turn `turn` loading: `progress` turns of loading
    /// so far, `loaded` once the weapon is ready for an aimed shot.
    Loading {
        figure: FigureId,
        progress: u32,
        loaded: bool,
        turn: u32,
    },
    /// A leader gave his one order of turn `turn`.
    OrderIssued { giver: FigureId, turn: u32 },
    /// A fanatic started charging `target` (by name): from now on he reacts
    /// to nothing else.
    FanaticCharging { figure: FigureId, target: String },
    /// The figure charged to within an inch of an enemy in turn `turn`: his
    /// immediate hand-to-hand attack is due.
    ChargedIntoContact { figure: FigureId, turn: u32 },
    /// The figure made the immediate attack of his charge.
    ChargeAttackMade { figure: FigureId },
    /// A broken side in a protected position shed points in turn `turn`.
    Shed { side: usize, turn: u32 },
    /// A rider got down; his mount is held as `held` (it no longer moves
    /// with him).
    Dismounted { figure: FigureId, held: MountHeld },
    /// One more turn of driving a peg: `turns_left` to go (0: tied).
    PegDriven { figure: FigureId, turns_left: u32 },
    /// Summary of one shot (the number needed, the band, the result).
    FireResolved {
        shooter: FigureId,
        target: FigureId,
        mode: FireMode,
        band: String,
        needed: u32,
        save: u32,
        on_target: bool,
        saved: bool,
        aim_bonus: Option<AimUse>,
    },
    /// Summary of one melee exchange.
    MeleeResolved {
        attackers: Vec<FigureId>,
        defenders: Vec<FigureId>,
        attacker_totals: Vec<i32>,
        defender_totals: Vec<i32>,
    },
    /// He aims at `target`: the bonus is ready the turn after.
    AimTaken { figure: FigureId, target: FigureId },
    /// He aims at a location (table inches): he covers the area about it.
    AimedAtLocation {
        figure: FigureId,
        center_in: nalgebra::Point2<f64>,
    },
    /// `target` appeared in the area `figure` covers, in turn `turn`,
    /// side `active_side`'s phase `phase`: he may fire at him at once.
    AppearedInCoveredArea {
        figure: FigureId,
        target: FigureId,
        turn: u32,
        active_side: usize,
        phase: usize,
    },
    /// He fired (the round, his aim and his concealment are spent).
    ShotFired {
        figure: FigureId,
        target: FigureId,
        mode: FireMode,
    },
    /// After recovery: the wound left (None = fit).
    Healed {
        figure: FigureId,
        wound: Option<Wound>,
    },
    /// Does nothing until the end of `until_turn` (close miss, frozen).
    Idle {
        figure: FigureId,
        until_turn: u32,
        reason: String,
    },
    /// Where he is in crossing an obstacle.
    ObstacleStage {
        figure: FigureId,
        stage: ObstacleStage,
    },
    /// A European used one more of his turns of charging.
    ChargeTurnUsed { figure: FigureId },
    /// He went prone or got up.
    Prone { figure: FigureId, prone: bool },
    /// An order reached `to`, obeyed from turn `from_turn`.
    OrderGiven {
        giver: FigureId,
        to: Vec<FigureId>,
        order: String,
        via: String,
        from_turn: u32,
    },
    /// A hidden figure was seen.
    Spotted { figure: FigureId },
    /// His experience number is now `number`.
    Experience { figure: FigureId, number: u8 },
    /// The novice leader's first-attack reaction was rolled.
    FirstAttackRolled { side: usize },
    /// The side's preservation points, and whether it is broken.
    Preservation {
        side: usize,
        points: u32,
        broken: bool,
    },
}

impl Event {
    /// The event's change to the state.
    pub fn apply(&self, state: &mut GameState) {
        match self {
            Self::AimTaken { .. }
            | Self::AimedAtLocation { .. }
            | Self::AppearedInCoveredArea { .. }
            | Self::ShotFired { .. }
            | Self::Healed { .. }
            | Self::Idle { .. }
            | Self::ObstacleStage { .. }
            | Self::ChargeTurnUsed { .. }
            | Self::Prone { .. }
            | Self::Spotted { .. }
            | Self::Experience { .. } => self.apply_to_figure(state),
            Self::OrderGiven {
                to,
                order,
                from_turn,
                ..
            } => {
                for id in to {
                    if let Some(f) = state.figures.get(id.index()) {
                        let own = own_turn(state, f.side);
                        if let Some(f) = state.figures.get_mut(id.index()) {
                            f.rules.stand_to_mut().on_order(own, order, *from_turn);
                        }
                    }
                }
            }
            Self::FirstAttackRolled { side } => {
                if let Some(s) = state.sides.get_mut(*side) {
                    s.rules.stand_to_mut().first_attack_rolled = true;
                }
            }
            Self::Preservation {
                side,
                points,
                broken,
            } => {
                if let Some(s) = state.sides.get_mut(*side) {
                    let st = s.rules.stand_to_mut();
                    st.preservation_points = *points;
                    st.broken = *broken;
                }
            }
            _ => self.apply_setup(state),
        }
    }

    /// The events of one figure's fire, wounds, moves and experience.
    fn apply_to_figure(&self, state: &mut GameState) {
        let figure = match self {
            Self::AimTaken { figure, .. }
            | Self::AimedAtLocation { figure, .. }
            | Self::AppearedInCoveredArea { figure, .. }
            | Self::ShotFired { figure, .. }
            | Self::Healed { figure, .. }
            | Self::Idle { figure, .. }
            | Self::ObstacleStage { figure, .. }
            | Self::ChargeTurnUsed { figure }
            | Self::Prone { figure, .. }
            | Self::Spotted { figure }
            | Self::Experience { figure, .. } => *figure,
            _ => return,
        };
        let Some(own) = state.figure(figure).map(|f| own_turn(state, f.side)) else {
            return;
        };
        let Some(f) = state.figures.get_mut(figure.index()) else {
            return;
        };
        match self {
            Self::AimTaken { target, .. } => {
                let s = f.rules.stand_to_mut();
                s.aiming_at = Some(*target);
                s.aim_ready_from = Some(own + 1);
                s.covering = None;
            }
            Self::AimedAtLocation { center_in, .. } => {
                let s = f.rules.stand_to_mut();
                s.aiming_at = None;
                s.aim_ready_from = None;
                s.covering = Some(super::status::CoveredArea {
                    center_in: *center_in,
                    turn: own,
                    appeared: Vec::new(),
                });
            }
            Self::AppearedInCoveredArea {
                target,
                turn,
                active_side,
                phase,
                ..
            } => {
                if let Some(c) = f.rules.stand_to_mut().covering.as_mut() {
                    c.appeared.retain(|a| a.target != *target);
                    c.appeared.push(super::status::Appearance {
                        target: *target,
                        turn: *turn,
                        active_side: *active_side,
                        phase: *phase,
                    });
                }
            }
            Self::ShotFired { .. } => {
                f.loaded = false;
                f.concealed = false;
                f.rules.stand_to_mut().on_shot(own);
            }
            Self::Healed { wound, .. } => f.wound = *wound,
            Self::Idle { until_turn, .. } => {
                f.rules.stand_to_mut().idle_until_turn = Some(*until_turn);
            }
            Self::ObstacleStage { stage, .. } => f.rules.stand_to_mut().obstacle = *stage,
            Self::ChargeTurnUsed { .. } => f.rules.stand_to_mut().charge_turns_used += 1,
            Self::Prone { prone, .. } => f.rules.stand_to_mut().prone = *prone,
            Self::Spotted { .. } => f.concealed = false,
            Self::Experience { number, .. } => f.experience = *number,
            _ => {}
        }
    }

    /// The events of loading, orders, charges, shedding and mounts.
    fn apply_setup(&self, state: &mut GameState) {
        match self {
            Self::Loading {
                figure,
                progress,
                loaded,
                turn,
            } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().load_progress = *progress;
                    f.loaded = *loaded;
                    f.rules.stand_to_mut().loaded_turn = Some(*turn);
                }
            }
            Self::OrderIssued { giver, turn } => {
                if let Some(f) = state.figures.get_mut(giver.index()) {
                    let s = f.rules.stand_to_mut();
                    if s.order_turn == Some(*turn) {
                        s.orders_in_turn += 1;
                    } else {
                        s.order_turn = Some(*turn);
                        s.orders_in_turn = 1;
                    }
                }
            }
            Self::FanaticCharging { figure, target } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().charging = Some(target.clone());
                }
            }
            Self::ChargedIntoContact { figure, turn } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().charge_contact_turn = Some(*turn);
                }
            }
            Self::ChargeAttackMade { figure } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().charge_contact_turn = None;
                }
            }
            Self::Shed { side, turn } => {
                if let Some(s) = state.sides.get_mut(*side) {
                    s.rules.stand_to_mut().shed_turn = Some(*turn);
                }
            }
            Self::Dismounted { figure, held } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.mount_level = None;
                    f.placement.shape = crate::geometry::BaseShape::FOOT;
                    f.rules.stand_to_mut().mount_held = Some(held.clone());
                }
            }
            Self::PegDriven { figure, turns_left } => {
                if let Some(f) = state.figures.get_mut(figure.index()) {
                    f.rules.stand_to_mut().mount_held = Some(MountHeld::Peg {
                        turns_left: *turns_left,
                    });
                }
            }
            _ => {}
        }
    }
}
