//! Volley Fire! movement: moves by units (front centre to front centre),
//! rough ground and friends halving, double time, formation changes and
//! the formations' layouts.
//!
//! # Conventions
//! Table inches; facings in degrees counter-clockwise from +x; a unit's
//! ranks run front to back, its files left to right seen from behind.

use nalgebra::{Point2, Vector2};

use super::action::{FormParams, MoveParams};
use super::engine::{
    VolleyFireRules, alive, centroid, ids, kill, pos, quantized, refuse, troops, unit, ust,
};
use super::event::Event as VfEvent;
use super::status::Troops;
use crate::core::dice::{Dice, total};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::{TerrainKind, line_hits_base, segment_crosses};
use crate::rules::{Event, FigureId, GameState, Pace, RuleError, Unit};

/// A figure's place in a formation: position (table inches) and facing
/// (degrees).
type Spot = (Point2<f64>, f64);

/// Terrain that halves a move: "rough terrain, and across walls, ditches,
/// fences, and fordable water".
const HALVING_KINDS: [TerrainKind; 2] = [TerrainKind::Rough, TerrainKind::Obstacle];

/// A gun's two formations: limbering or unlimbering changes between them.
pub(super) const GUN_FORMATIONS: [&str; 2] = ["deployed", "limbered"];

/// A move before the dice.
#[derive(Debug, Clone)]
pub struct MovePlan {
    pub unit: usize,
    pub troops: Troops,
    /// The front centre, table inches.
    pub from: Point2<f64>,
    pub members: Vec<(usize, FigureId)>,
    /// Number of d6.
    pub dice: u32,
    /// Halved for rough ground, and again for moving through friends.
    pub rough: bool,
    pub through_friends: bool,
}

impl VolleyFireRules {
    /// British units need their own leader; Dervish groups a leader within
    /// 24 in of their front.
    pub(super) fn has_leader(
        &self,
        state: &GameState,
        u: &Unit,
        troops: Troops,
        from: Point2<f64>,
        members: &[(usize, FigureId)],
    ) -> bool {
        if troops.dervish() {
            state.figures.iter().any(|f| {
                f.side == u.side
                    && f.leader
                    && f.active()
                    && (f.placement.center_in_table - from).norm()
                        <= self.data.movement.dervish_leader_radius_in
            })
        } else {
            members
                .iter()
                .any(|(_, id)| state.figure(*id).is_some_and(|f| f.leader))
        }
    }

    /// The front centre of a unit (its foremost rank with men left) and its
    /// alive figures.
    pub(super) fn front_of(
        &self,
        state: &GameState,
        u: &Unit,
    ) -> (Point2<f64>, Vec<(usize, FigureId)>) {
        let members = alive(state, u);
        let first_rank = members
            .iter()
            .map(|(k, _)| u.rank_of(*k))
            .min()
            .unwrap_or(0);
        let front: Vec<FigureId> = members
            .iter()
            .filter(|(k, _)| u.rank_of(*k) == first_rank)
            .map(|(_, id)| *id)
            .collect();
        (centroid(state, &front), members)
    }

    /// Does rough ground halve this move? "All Sudanese infantry, guns, and
    /// all mounted troops move one-half ... through rough terrain ... Dervish
    /// foot take no such terrain penalty nor do mounted leaders"; "Scouts
    /// take no terrain penalty". The player's word if given, else the
    /// table's rough and obstacle areas on the straight path asked for.
    pub(super) fn rough_halves(
        &self,
        state: &GameState,
        u: &Unit,
        troops: Troops,
        path: (Point2<f64>, Point2<f64>),
        said: Option<bool>,
    ) -> bool {
        if u.formation == self.data.formation.scouts || !self.data.terrain_halves(troops.name()) {
            return false;
        }
        said.unwrap_or_else(|| {
            state.terrain.iter().any(|t| {
                HALVING_KINDS.iter().any(|k| t.is(*k))
                    && segment_crosses(path.0, path.1, &t.polygon_in)
            })
        })
    }

    /// "Sudanese/British units can move through friendly units with no
    /// disruption but their move distance is cut in half (round up)";
    /// Dervish groups and shaken units move through with no effect.
    fn through_friends(
        &self,
        state: &GameState,
        u: &Unit,
        troops: Troops,
        path: (Point2<f64>, Point2<f64>),
    ) -> bool {
        if troops.dervish() || ust(u).shaken {
            return false;
        }
        state
            .units
            .iter()
            .filter(|o| o.side == u.side && o.name != u.name)
            .flat_map(|o| alive(state, o))
            .filter_map(|(_, id)| state.figure(id))
            .any(|f| line_hits_base(path.0, path.1, &f.placement))
    }

    /// Can the unit move now, and with how many dice? (No dice rolled.)
    pub(super) fn move_plan(
        &self,
        state: &GameState,
        p: &MoveParams,
    ) -> Result<MovePlan, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        self.check_may_act(state, u)?;
        self.unit_move_plan(state, p)
    }

    /// The unit's move dice and halvings, whether or not it may act now.
    pub(super) fn unit_move_plan(
        &self,
        state: &GameState,
        p: &MoveParams,
    ) -> Result<MovePlan, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        crate::rules::common::require_on_table(super::NAME, state, [p.to_in])?;
        let troops = troops(u)?;
        let (from, members) = self.front_of(state, u);
        if members.is_empty() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} has nobody left", u.name),
            ));
        }
        let shaken = ust(u).shaken;
        if p.fire_after && !(ust(u).gun && u.formation == GUN_FORMATIONS[0]) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} is not a deployed gun: only a deployed gun moves one d6 and fires that turn",
                    u.name
                ),
            ));
        }
        let dice = if p.fire_after {
            // "Deployed guns can move one D6 and fire that turn."
            self.data.fire.gun_move_fire_dice
        } else if shaken {
            // "All move a two D6 distance until they regroup."
            self.data.melee.shaken_move_dice
        } else {
            let has_leader = self.has_leader(state, u, troops, from, &members);
            self.data
                .move_dice(troops.name(), &u.formation, has_leader)
                .ok_or_else(|| {
                    refuse(
                        RefusalKind::NotInTables,
                        format!("no move dice for {} in {}", troops.name(), u.formation),
                    )
                })?
        };
        if p.double_time {
            let dt = &self.data.double_time;
            if !dt.troops.iter().any(|t| t == troops.name())
                || u.formation == self.data.formation.scouts
                || shaken
            {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} cannot double time (only {} units, never scouts or shaken units)",
                        u.name,
                        dt.troops.join(", ")
                    ),
                ));
            }
        }
        let path = (from, Point2::new(p.to_in[0], p.to_in[1]));
        Ok(MovePlan {
            unit: ui,
            troops,
            from,
            dice,
            rough: self.rough_halves(state, u, troops, path, p.rough),
            through_friends: self.through_friends(state, u, troops, path),
            members,
        })
    }

    /// The inches a move's roll allows after the halvings.
    pub(super) fn allowed_in(&self, plan: &MovePlan, rolled: u32) -> u32 {
        let mut allowed = rolled;
        if plan.rough {
            allowed = allowed.div_ceil(self.data.movement.terrain_divisor.max(1));
        }
        if plan.through_friends {
            allowed = allowed.div_ceil(2);
        }
        allowed
    }

    /// Double time: "rolling two D6 ... The resultant number is the
    /// additional inches ... The low die rolled, however, is the number of
    /// casualties down from heat stroke ... If doubles are rolled there are
    /// no such casualties. British units ... the high die". Returns the
    /// extra inches, the events and the men down.
    fn double_time(
        &self,
        state: &GameState,
        u: &Unit,
        plan: &MovePlan,
        dice: &mut dyn Dice,
    ) -> Result<(u32, Vec<Event>, Vec<FigureId>), RuleError> {
        let dt = &self.data.double_time;
        let extra = dice.roll_n(dt.dice as usize, 6)?;
        let faces = [
            extra[0].face,
            extra.get(1).map_or(extra[0].face, |d| d.face),
        ];
        let high = dt.high_die_troops.iter().any(|t| t == plan.troops.name());
        let (more, down) = super::double_time(faces, high);
        let mut ev = vec![Event::Rolled {
            purpose: format!("{} double times", u.name),
            figure: None,
            dice: extra,
        }];
        // Heat stroke takes the rearmost men.
        let fallen: Vec<FigureId> = plan
            .members
            .iter()
            .rev()
            .filter(|(_, id)| state.figure(*id).is_some_and(|f| !f.leader))
            .take(down as usize)
            .map(|(_, id)| *id)
            .collect();
        ev.push(Event::Note {
            text: format!(
                "{} double times {more} in more; {} down from heat stroke",
                u.name,
                fallen.len()
            ),
        });
        for id in &fallen {
            ev.push(Event::VolleyFire(VfEvent::HeatStroke { figure: *id }));
            ev.push(kill(*id));
        }
        Ok((more, ev, fallen))
    }

    pub(super) fn resolve_move(
        &self,
        state: &GameState,
        p: &MoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        if self.building_of(state, u).is_some() {
            return self.resolve_leave(state, &p.unit, Some(p.to_in), None, None);
        }
        self.check_move(state, p)?;
        let plan = self.move_plan(state, p)?;
        let rolls = dice.roll_n(plan.dice as usize, 6)?;
        let mut allowed = f64::from(self.allowed_in(&plan, total(&rolls)));
        let (mut heat, mut fallen) = (Vec::new(), Vec::new());
        if p.double_time {
            let (more, ev, down) = self.double_time(state, u, &plan, dice)?;
            allowed += f64::from(more);
            heat = ev;
            fallen = down;
        }
        let want = Point2::new(p.to_in[0], p.to_in[1]) - plan.from;
        let step = if want.norm() > allowed && want.norm() > 0.0 {
            want * (allowed / want.norm())
        } else {
            want
        };
        let halvings = match (plan.rough, plan.through_friends) {
            (true, true) => ", halved for rough ground and for friends",
            (true, false) => ", halved for rough ground",
            (false, true) => ", halved through friends",
            (false, false) => "",
        };
        let mut ev = vec![Event::Rolled {
            purpose: format!("{} moves ({} d6{halvings})", u.name, plan.dice),
            figure: None,
            dice: rolls,
        }];
        ev.extend(heat);
        ev.push(Event::Measured(
            Length::<Inch>::exact(step.norm()).reading(format!("{} moves", u.name), &[allowed]),
        ));
        ev.push(Self::acted(state, plan.unit));
        // "Deployed guns can move one D6 and fire that turn": after its
        // three d6 it does not.
        if ust(u).gun && u.formation == GUN_FORMATIONS[0] && !p.fire_after {
            ev.push(Event::VolleyFire(VfEvent::GunMovedFull {
                unit: plan.unit,
                turn: state.turn,
            }));
        }
        for (_, id) in &plan.members {
            if fallen.contains(id) {
                continue;
            }
            if let Some(f) = state.figure(*id) {
                ev.push(Event::Moved {
                    figure: *id,
                    to_in: quantized(f.placement.center_in_table + step),
                    facing_deg: f.placement.facing_deg,
                    pace: Pace::Walk,
                    distance_in: step.norm(),
                    through_rough: plan.rough,
                });
            }
        }
        Ok(ev)
    }

    /// Can the unit change formation now? Returns the move plan of its
    /// present formation.
    pub(super) fn form_plan(
        &self,
        state: &GameState,
        p: &FormParams,
    ) -> Result<MovePlan, RuleError> {
        let (ui, u) = unit(state, &p.unit)?;
        self.check_may_act(state, u)?;
        crate::rules::common::require_on_table(super::NAME, state, p.to_in)?;
        let troops = troops(u)?;
        if ust(u).shaken {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is shaken: it regroups first", u.name),
            ));
        }
        let allowed_formations = self.data.movement.dice.get(troops.name());
        if p.formation == self.data.formation.scouts
            || !allowed_formations.is_some_and(|f| f.contains_key(&p.formation))
        {
            let known: Vec<&str> = allowed_formations
                .map(|f| {
                    f.keys()
                        .map(String::as_str)
                        .filter(|k| *k != self.data.formation.scouts)
                        .collect()
                })
                .unwrap_or_default();
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} ({}) cannot form {}; its formations: {}",
                    u.name,
                    troops.name(),
                    p.formation,
                    known.join(", ")
                ),
            ));
        }
        let (from, members) = self.front_of(state, u);
        if members.is_empty() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} has nobody left", u.name),
            ));
        }
        let has_leader = self.has_leader(state, u, troops, from, &members);
        let dice = self
            .data
            .move_dice(troops.name(), &u.formation, has_leader)
            .ok_or_else(|| {
                refuse(
                    RefusalKind::NotInTables,
                    format!("no move dice for {} in {}", troops.name(), u.formation),
                )
            })?;
        self.layout(&p.formation, members.len(), from, 0.0)?;
        let to = p.to_in.map_or(from, |t| Point2::new(t[0], t[1]));
        Ok(MovePlan {
            unit: ui,
            troops,
            from,
            dice,
            rough: self.rough_halves(state, u, troops, (from, to), p.rough),
            through_friends: false,
            members,
        })
    }

    /// A formation change: half the present formation's move, then the new
    /// formation and facing at the new place.
    pub(super) fn resolve_form(
        &self,
        state: &GameState,
        p: &FormParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        if self.building_of(state, u).is_some() {
            self.check_form(state, p)?;
            return self.resolve_leave(state, &p.unit, p.to_in, Some(&p.formation), p.facing_deg);
        }
        self.check_form(state, p)?;
        let plan = self.form_plan(state, p)?;
        let rolls = dice.roll_n(plan.dice as usize, 6)?;
        let half = total(&rolls).div_ceil(self.data.formation.change_move_divisor.max(1));
        let allowed = f64::from(self.allowed_in(&plan, half));
        let want = p
            .to_in
            .map_or(Vector2::zeros(), |t| Point2::new(t[0], t[1]) - plan.from);
        let step = if want.norm() > allowed {
            want * (allowed / want.norm())
        } else {
            want
        };
        let facing = p.facing_deg.unwrap_or_else(|| {
            state
                .figure(plan.members[0].1)
                .map_or(0.0, |f| f.placement.facing_deg)
        });
        let (spots, frontage) =
            self.layout(&p.formation, plan.members.len(), plan.from + step, facing)?;
        let mut ev = vec![
            Event::Rolled {
                purpose: format!("{} changes formation ({} d6, half)", u.name, plan.dice),
                figure: None,
                dice: rolls,
            },
            Event::Measured(
                Length::<Inch>::exact(step.norm())
                    .reading(format!("{} moves while forming", u.name), &[allowed]),
            ),
            Event::Formed {
                unit: plan.unit,
                formation: p.formation.clone(),
                frontage,
            },
            Self::acted(state, plan.unit),
        ];
        // "Guns that limber or unlimber (in place), cannot fire the turn
        // that they do so."
        if [&u.formation, &p.formation]
            .iter()
            .all(|f| GUN_FORMATIONS.contains(&f.as_str()))
            && u.formation != p.formation
        {
            ev.push(Event::VolleyFire(VfEvent::Limbered {
                unit: plan.unit,
                turn: state.turn,
            }));
        }
        // Alive figures take the new places in unit order; the fallen keep
        // theirs.
        for ((_, id), (to, f)) in plan.members.iter().zip(spots) {
            let from_p = pos(state, *id);
            ev.push(Event::Moved {
                figure: *id,
                to_in: to,
                facing_deg: f,
                pace: Pace::Walk,
                distance_in: (to - from_p).norm(),
                through_rough: plan.rough,
            });
        }
        Ok(ev)
    }

    /// Every alive man of `mover` moves `dist` in directly away from
    /// `from` (centre of one to centre of the other), kept on the table;
    /// `face_away` turns them the way they go ("backs to the enemy").
    pub(super) fn move_away(
        &self,
        state: &GameState,
        mover: &Unit,
        from: &Unit,
        dist: f64,
        face_away: bool,
    ) -> Vec<Event> {
        let members = alive(state, mover);
        let away = centroid(state, &ids(&members)) - centroid(state, &ids(&alive(state, from)));
        let dir = if away.norm() > 0.0 {
            away / away.norm()
        } else {
            Vector2::new(0.0, 1.0)
        };
        let facing = dir.y.atan2(dir.x).to_degrees().rem_euclid(360.0);
        let mut ev = Vec::new();
        for (_, id) in members {
            if let Some(f) = state.figure(id) {
                let to = f.placement.center_in_table + dir * dist;
                let to = Point2::new(
                    to.x.clamp(0.0, state.table.width_in),
                    to.y.clamp(0.0, state.table.depth_in),
                );
                ev.push(Event::Moved {
                    figure: id,
                    to_in: quantized(to),
                    facing_deg: if face_away {
                        facing
                    } else {
                        f.placement.facing_deg
                    },
                    pace: Pace::Evade,
                    distance_in: (to - f.placement.center_in_table).norm(),
                    through_rough: false,
                });
            }
        }
        ev
    }

    /// Alive figures laid out in a formation around a front centre: ranks
    /// front to back, files left to right seen from behind; a hollow square
    /// fills its four sides in turn, each facing out. Returns positions and
    /// facings, and the frontage.
    pub(super) fn layout(
        &self,
        formation: &str,
        n: usize,
        front: Point2<f64>,
        facing_deg: f64,
    ) -> Result<(Vec<Spot>, u32), RuleError> {
        let fd = self.data.formation.layout.get(formation).ok_or_else(|| {
            let known: Vec<&str> = self
                .data
                .formation
                .layout
                .keys()
                .map(String::as_str)
                .collect();
            refuse(
                RefusalKind::NotInTables,
                format!(
                    "no formation `{formation}` (formations: {})",
                    known.join(", ")
                ),
            )
        })?;
        let sp = self.data.formation.spacing_in;
        let a = facing_deg.to_radians();
        let forward = Vector2::new(a.cos(), a.sin());
        let right = Vector2::new(forward.y, -forward.x);
        let n_u32 = u32::try_from(n).unwrap_or(u32::MAX);
        if fd.hollow {
            return Ok(hollow_square(n, sp, front, forward, right));
        }
        let per_rank = match (fd.frontage, fd.ranks) {
            (Some(f), _) => f.max(1),
            (None, Some(r)) => n_u32.div_ceil(r.max(1)).max(1),
            (None, None) => n_u32.max(1),
        } as usize;
        let out = (0..n)
            .map(|k| {
                let (row, col) = (k / per_rank, k % per_rank);
                let in_row = per_rank.min(n - row * per_rank);
                let across = (col as f64 - (in_row as f64 - 1.0) / 2.0) * sp;
                let p = front + right * across - forward * (row as f64 * sp);
                (quantized(p), facing_deg.rem_euclid(360.0))
            })
            .collect();
        Ok((out, u32::try_from(per_rank).unwrap_or(u32::MAX)))
    }
}

/// A hollow square, sides as equal as possible (front, right, rear, left),
/// each facing out; returns the spots and the side's length in men.
fn hollow_square(
    n: usize,
    sp: f64,
    front: Point2<f64>,
    forward: Vector2<f64>,
    right: Vector2<f64>,
) -> (Vec<Spot>, u32) {
    let side = n.div_ceil(4).max(1);
    let half = (side as f64 - 1.0) / 2.0 * sp;
    let centre = front - forward * (half + sp / 2.0);
    let mut out = Vec::new();
    for k in 0..n {
        let (s, i) = (k / side, k % side);
        let along = (i as f64 - (side as f64 - 1.0) / 2.0) * sp;
        let depth = half + sp / 2.0;
        let (out_dir, across) = match s {
            0 => (forward, right),
            1 => (right, -forward),
            2 => (-forward, -right),
            _ => (-right, forward),
        };
        let p = centre + out_dir * depth + across * along;
        let f = out_dir.y.atan2(out_dir.x).to_degrees().rem_euclid(360.0);
        out.push((quantized(p), f));
    }
    (out, u32::try_from(side).unwrap_or(u32::MAX))
}
