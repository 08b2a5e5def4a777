//! Movement (5): a figure's move in its sub-phase of the movement phase
//! (horses first, then men and guns, then vehicles), the minefield squares
//! it crosses (10.3), and the follow-through move at the end of the turn
//! (5.6).
//!
//! # Conventions
//! Table inches; a path is the figure's centre from where he stands through
//! the given points. Move lengths carry the figure's position uncertainty:
//! a path too close to call against the allowance is allowed and the
//! reading says so.

use nalgebra::Point2;

use super::action::{FollowParams, LeaveParams, MoveParams};
use super::engine::{
    FOLLOW_THROUGH, HORSES, MEN, SoldiersInTimeRules, centre_gap, edge_gap, in_play, point, refuse,
    routed, sit, st, within,
};
use super::event::Event as SitEvent;
use super::status::{self, Order};
use super::{NAME, mine_p, morale_odds, morale_passes};
use crate::core::dice::Dice;
use crate::core::odds::named;
use crate::core::{Inch, Length, Reading, RefusalKind};
use crate::geometry::{
    TerrainKind, angle_off_facing_deg, bearing_deg, path_length_in, point_in_polygon,
};
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::{Event, Figure, FigureId, GameState, Pace, RuleError, RuleSet};

/// A move, decided but for the mines.
pub(super) struct MovePlan {
    figure: FigureId,
    path: Vec<Point2<f64>>,
    pace: Pace,
    /// A rider's new horse speed.
    level: Option<u8>,
    /// A charge, the how-many-th turn running.
    charge: Option<u32>,
    facing_deg: Option<f64>,
    reading: Reading,
}

/// One time a move enters (or starts inside) a minefield square.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct MineEntry {
    pub corner: Point2<f64>,
    /// How far along the path, inches.
    pub along_in: f64,
    pub at: Point2<f64>,
    /// The bearing of the leg it is on.
    pub heading_deg: f64,
}

/// Where the segment `a`-`b` is inside the axis-aligned square with
/// lower-left `corner` and side `side_in`: the parameters (0..1) it enters
/// and leaves at (Liang-Barsky clipping).
fn clip_to_square(
    a: Point2<f64>,
    b: Point2<f64>,
    corner: Point2<f64>,
    side_in: f64,
) -> Option<(f64, f64)> {
    let d = b - a;
    let (mut t0, mut t1) = (0.0_f64, 1.0_f64);
    let edges = [
        (-d.x, a.x - corner.x),
        (d.x, corner.x + side_in - a.x),
        (-d.y, a.y - corner.y),
        (d.y, corner.y + side_in - a.y),
    ];
    for (p, q) in edges {
        if p.abs() <= f64::EPSILON {
            if q < 0.0 {
                return None;
            }
            continue;
        }
        let t = q / p;
        if p < 0.0 {
            t0 = t0.max(t);
        } else {
            t1 = t1.min(t);
        }
        if t0 > t1 {
            return None;
        }
    }
    Some((t0, t1))
}

/// Where a path first enters the outline `poly` from outside (None: it
/// starts inside or never enters): how far along, inches, and the point.
pub(super) fn first_entry(
    path: &[Point2<f64>],
    poly: &[Point2<f64>],
) -> Option<(f64, Point2<f64>)> {
    if poly.len() < 3 || path.first().is_none_or(|p| point_in_polygon(poly, *p)) {
        return None;
    }
    let mut along = 0.0;
    for w in path.windows(2) {
        let r = w[1] - w[0];
        let mut best: Option<f64> = None;
        for i in 0..poly.len() {
            let (c, d) = (poly[i], poly[(i + 1) % poly.len()]);
            let e = d - c;
            let denom = r.perp(&e);
            if denom.abs() <= f64::EPSILON {
                continue;
            }
            let t = (c - w[0]).perp(&e) / denom;
            let u = (c - w[0]).perp(&r) / denom;
            if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
                best = Some(best.map_or(t, |b: f64| b.min(t)));
            }
        }
        if let Some(t) = best {
            return Some((along + t * r.norm(), w[0] + r * t));
        }
        along += r.norm();
    }
    None
}

/// Each time a path enters a square, or starts inside it: 10.3, "he must
/// roll each time he moves into or through a mine field segment". A path
/// that stops inside rolls once now and once more when it moves on (so "a
/// soldier who has to stop in the mine field will have to roll at least
/// twice"), not twice now.
pub(super) fn mine_entries(
    path: &[Point2<f64>],
    corner: Point2<f64>,
    side_in: f64,
) -> Vec<MineEntry> {
    const JOIN_IN: f64 = 1e-9;
    let mut spans: Vec<(f64, f64, Point2<f64>, f64)> = Vec::new();
    let mut along = 0.0;
    for w in path.windows(2) {
        let len = (w[1] - w[0]).norm();
        if let Some((t0, t1)) = clip_to_square(w[0], w[1], corner, side_in) {
            let (s0, s1) = (along + t0 * len, along + t1 * len);
            match spans.last_mut() {
                Some(last) if s0 <= last.1 + JOIN_IN => last.1 = last.1.max(s1),
                _ => spans.push((s0, s1, w[0] + (w[1] - w[0]) * t0, bearing_deg(w[0], w[1]))),
            }
        }
        along += len;
    }
    spans
        .into_iter()
        .filter(|(s0, s1, ..)| s1 - s0 > JOIN_IN)
        .map(|(s0, _, at, heading_deg)| MineEntry {
            corner,
            along_in: s0,
            at,
            heading_deg,
        })
        .collect()
}

impl SoldiersInTimeRules {
    fn speed_name(&self, level: u8) -> String {
        self.data
            .movement
            .horse_speeds
            .get(usize::from(level))
            .cloned()
            .unwrap_or_else(|| level.to_string())
    }

    fn top_level(&self) -> u8 {
        u8::try_from(self.data.movement.horse_speeds.len().saturating_sub(1)).unwrap_or(u8::MAX)
    }

    fn is_gun(&self, f: &Figure) -> bool {
        self.data
            .weapons
            .get(&f.weapon)
            .is_some_and(|w| w.artillery.is_some())
    }

    /// The movement sub-phase a figure moves in (2: horses, then men,
    /// artillery and mixed units, then vehicles).
    fn movement_phase(f: &Figure) -> &'static str {
        if f.mounted() { HORSES } else { MEN }
    }

    /// Why a figure on foot may not move now (None: he may).
    fn foot_order_refusal(&self, state: &GameState, f: &Figure) -> Option<RuleError> {
        let why = match st(f).order {
            Some(o) if o.passed && o.order.moves() => return None,
            Some(o) if !o.passed => format!(
                "{} failed his {} activation: he does not move this turn (he may turn to face)",
                f.name,
                o.order.name()
            ),
            Some(o) => format!(
                "{} is under a {} order: it does not move him",
                f.name,
                o.order.name()
            ),
            None if !f.leader && !self.leader_in_range(state, f) => format!(
                "{} is outside every leader's command range: he flips on the out of command \
                 range chart first (`individual`)",
                f.name
            ),
            None => format!(
                "{} has no movement order (forward march, formed charge, follow him)",
                f.name
            ),
        };
        Some(refuse(RefusalKind::NoOrder, why).by(f.id))
    }

    /// A rider's speed this turn and the allowance: one step up or down with
    /// a passed order, otherwise the same speed or a step slower, straight
    /// on (5.3).
    fn horse_move(
        &self,
        f: &Figure,
        p: &MoveParams,
        path_points: usize,
    ) -> Result<(u8, f64), RuleError> {
        let ordered = st(f).order.is_some_and(|o| o.passed && o.order.moves());
        let now = f.mount_level.unwrap_or(0);
        let level = match &p.speed {
            Some(name) => self.mount_level(name).ok_or_else(|| {
                refuse(RefusalKind::NotInTables, format!("no horse speed `{name}`"))
            })?,
            None => now,
        };
        let (lo, hi) = if ordered {
            let c = self.data.movement.horse_change_levels;
            (now.saturating_sub(c), now.saturating_add(c))
        } else {
            if path_points > 2 {
                return Err(refuse(
                    RefusalKind::Movement,
                    format!("{} has no order: his horse runs on straight", f.name),
                )
                .by(f.id));
            }
            (
                now.saturating_sub(self.data.movement.horse_fail_slow_levels),
                now,
            )
        };
        if !(lo..=hi).contains(&level) {
            return Err(refuse(
                RefusalKind::Movement,
                format!(
                    "{}'s horse can go from {} to {} this turn",
                    f.name,
                    self.speed_name(lo),
                    self.speed_name(hi.min(self.top_level()))
                ),
            )
            .by(f.id));
        }
        Ok((level, self.data.horse_speed_in(level)))
    }

    /// The charge's turn count: at most two turns running (5.1).
    fn charge_run(&self, state: &GameState, f: &Figure) -> Result<u32, RuleError> {
        let s = st(f);
        let run = if s.charged_turn.is_some_and(|t| t + 1 == state.turn) {
            s.charge_turns + 1
        } else {
            1
        };
        if run > self.data.melee.charge_turns_max && !s.tireless {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has charged {} turns running: fatigue stops a third",
                    f.name, self.data.melee.charge_turns_max
                ),
            )
            .by(f.id));
        }
        Ok(run)
    }

    fn check_mover<'a>(
        &self,
        state: &'a GameState,
        p: &MoveParams,
    ) -> Result<&'a Figure, RuleError> {
        let f = figure(state, &p.figure)?;
        self.phase(state, "move", &[Self::movement_phase(f)])
            .map_err(|e| e.by(f.id))?;
        require_active_side(NAME, state, f)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot move", f.name)).by(f.id));
        }
        if st(f).moved_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has moved this turn", f.name),
            )
            .by(f.id));
        }
        Ok(f)
    }

    /// The allowance and pace of a figure on foot (or a gun's crew).
    fn foot_move(&self, state: &GameState, f: &Figure, p: &MoveParams) -> Result<f64, RuleError> {
        if let Some(why) = self.foot_order_refusal(state, f) {
            return Err(why);
        }
        let order = st(f).order.map(|o| o.order);
        if self.is_gun(f) {
            return Ok(self.data.movement.artillery_move_in);
        }
        if (p.run || p.charge) && order != Some(Order::FormedCharge) {
            return Err(refuse(
                RefusalKind::NoOrder,
                format!(
                    "running and charging need a formed charge order; {} has {}",
                    f.name,
                    order.map_or("none", Order::name)
                ),
            )
            .by(f.id));
        }
        Ok(if p.run || p.charge {
            self.data.movement.run_in
        } else {
            self.data.movement.foot_in
        })
    }

    pub(super) fn plan_move(
        &self,
        state: &GameState,
        p: &MoveParams,
    ) -> Result<MovePlan, RuleError> {
        let f = self.check_mover(state, p)?;
        crate::rules::common::require_on_table(NAME, state, p.path_in.iter().copied())?;
        let mut path = vec![f.placement.center_in_table];
        path.extend(p.path_in.iter().copied().map(point));
        if path.len() < 2 {
            return Err(refuse(
                RefusalKind::Malformed,
                "a move needs at least one point to go to",
            ));
        }
        let length = path_length_in(&path);
        let (level, allowance, pace) = if p.backwards {
            (None, self.backward_move(state, f, p, &path)?, Pace::Walk)
        } else if f.mounted() {
            let (level, allowance) = self.horse_move(f, p, path.len())?;
            let pace = if p.charge {
                Pace::Charge
            } else if level >= 2 {
                Pace::Doubletime
            } else {
                Pace::Walk
            };
            (
                Some(level).filter(|l| Some(*l) != f.mount_level),
                allowance,
                pace,
            )
        } else {
            let allowance = self.foot_move(state, f, p)?;
            let pace = if p.charge {
                Pace::Charge
            } else if p.run {
                Pace::Doubletime
            } else {
                Pace::Walk
            };
            (None, allowance, pace)
        };
        let measured = Length::<Inch>::path(length, &f.placement);
        if !within(measured, allowance) {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may move {allowance} in; the path is {length:.1} in",
                    f.name
                ),
            )
            .by(f.id));
        }
        let end = *path.last().unwrap_or(&path[0]);
        if let Some(enemy) = self.left_in_melee(state, f, end) {
            return Err(refuse(
                RefusalKind::Engaged,
                format!(
                    "{} is in base contact with {enemy}: to move out of the melee he must pass \
                     an activation check (`leave-melee`)",
                    f.name
                ),
            )
            .by(f.id));
        }
        self.check_away(state, f, end)?;
        let charge = if p.charge {
            Some(self.charge_run(state, f)?)
        } else {
            None
        };
        Ok(MovePlan {
            figure: f.id,
            path,
            pace,
            level,
            charge,
            facing_deg: if p.backwards {
                Some(f.placement.facing_deg)
            } else {
                p.facing_deg
            },
            reading: measured.reading(format!("{}'s move", f.name), &[allowance]),
        })
    }

    /// 5.1 Moving Backwards (house) and 5.3: "Cavalry previously halted or
    /// moving backwards can move backwards at 2 inches per turn." He keeps
    /// his facing, every leg more than 90 degrees off it; a man on foot at
    /// half his walk under an order that moves him, a rider only from a
    /// halt (his horse stays halted). Returns the allowance.
    fn backward_move(
        &self,
        state: &GameState,
        f: &Figure,
        p: &MoveParams,
        path: &[Point2<f64>],
    ) -> Result<f64, RuleError> {
        let bad = |kind, why: String| Err(refuse(kind, why).by(f.id));
        if p.run || p.charge || p.speed.is_some() {
            return bad(
                RefusalKind::Malformed,
                format!(
                    "{} moves backwards at a walk: no running, charging or new speed",
                    f.name
                ),
            );
        }
        let facing = f.placement.facing_deg;
        if let Some(w) = path.windows(2).find(|w| {
            (w[1] - w[0]).norm() > f64::EPSILON && angle_off_facing_deg(w[0], facing, w[1]) <= 90.0
        }) {
            return bad(
                RefusalKind::Movement,
                format!(
                    "moving backwards, {} keeps his facing ({facing:.0} degrees): the leg to \
                     {:.1},{:.1} does not go back",
                    f.name, w[1].x, w[1].y
                ),
            );
        }
        if f.mounted() {
            if f.mount_level.unwrap_or(0) != 0 {
                return bad(
                    RefusalKind::Movement,
                    format!("{}'s horse is moving: only a halted horse backs", f.name),
                );
            }
            if !st(f).order.is_some_and(|o| o.passed && o.order.moves()) {
                return bad(
                    RefusalKind::NoOrder,
                    format!("{} has no order to move: his horse stays halted", f.name),
                );
            }
            return Ok(self.data.movement.horse_back_in);
        }
        if let Some(why) = self.foot_order_refusal(state, f) {
            return Err(why);
        }
        if self.is_gun(f) {
            return Ok(self.data.movement.artillery_move_in);
        }
        Ok(self.data.movement.foot_in * self.data.movement.backward_fraction)
    }

    /// 5.3 Obstacles (house): a rider whose path enters an obstacle area
    /// jumps it on a card at or under his horsemanship; a refusal stops him
    /// at its edge. Returns the path he rides (cut at a refusal).
    fn jump_obstacles(
        &self,
        work: &mut Work,
        f: &Figure,
        path: &[Point2<f64>],
        dice: &mut dyn Dice,
    ) -> Result<Vec<Point2<f64>>, RuleError> {
        if !f.mounted() {
            return Ok(path.to_vec());
        }
        let mut entries: Vec<(f64, Point2<f64>, String)> = work
            .now
            .terrain
            .iter()
            .filter(|a| a.is(TerrainKind::Obstacle))
            .filter_map(|a| first_entry(path, &a.polygon_in).map(|(d, p)| (d, p, a.name.clone())))
            .collect();
        entries.sort_by(|a, b| a.0.total_cmp(&b.0));
        let number = st(f)
            .horsemanship
            .filter(|n| *n > 0)
            .unwrap_or(f.experience);
        for (along, at, name) in entries {
            let pile = Self::deck_pile(&work.now, f.side);
            work.push(Event::Odds {
                purpose: format!("{}'s horse jumps the {name}", f.name),
                odds: named(&[(
                    "p_jumps",
                    super::activation_odds(&self.data, &pile, number, f.leader),
                )]),
            });
            let card = Self::draw(work, f.side, dice)?;
            if !super::activation_passes(&self.data, card, number, f.leader) {
                work.note(format!(
                    "{}'s horse refuses the {name} (house rule): he stops at it",
                    f.name
                ));
                return Ok(cut_path(path, along, at));
            }
            work.note(format!("{}'s horse jumps the {name}", f.name));
        }
        Ok(path.to_vec())
    }

    /// `f` standing at `at` instead (his base and its uncertainty).
    fn placed_at(f: &Figure, at: Point2<f64>) -> Figure {
        let mut moved = f.clone();
        moved.placement.center_in_table = at;
        moved
    }

    /// The enemies in base contact with `f` now (melee contact, 1 in).
    fn in_contact_with<'a>(&self, state: &'a GameState, f: &Figure) -> Vec<&'a Figure> {
        state
            .figures
            .iter()
            .filter(|e| {
                e.side != f.side && in_play(e) && within(edge_gap(e, f), self.data.fire.adjacent_in)
            })
            .collect()
    }

    /// The enemy `f` would leave in melee by ending his move at `end`: in
    /// base contact now, not there.
    fn left_in_melee(&self, state: &GameState, f: &Figure, end: Point2<f64>) -> Option<String> {
        let there = Self::placed_at(f, end);
        self.in_contact_with(state, f)
            .into_iter()
            .find(|e| !within(edge_gap(e, &there), self.data.fire.adjacent_in))
            .map(|e| e.name.clone())
    }

    /// 5.2, Follow Him "moving away from known or suspected enemy
    /// positions": under such an order no move may end nearer an enemy in
    /// the fight than it started (centre to centre).
    fn check_away(&self, state: &GameState, f: &Figure, end: Point2<f64>) -> Result<(), RuleError> {
        if !st(f).order.is_some_and(|o| o.away && o.passed) {
            return Ok(());
        }
        let there = Self::placed_at(f, end);
        let closer = state.figures.iter().find(|e| {
            e.side != f.side
                && in_play(e)
                && centre_gap(e, &there).value()
                    < centre_gap(e, f).value() - super::engine::FLOAT_SLACK_IN
        });
        match closer {
            Some(e) => Err(refuse(
                RefusalKind::Movement,
                format!(
                    "{} follows his leader away from the enemy: this move closes on {}",
                    f.name, e.name
                ),
            )
            .by(f.id)),
            None => Ok(()),
        }
    }

    pub(super) fn resolve_move(
        &self,
        state: &GameState,
        p: &MoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.plan_move(state, p)?;
        let id = plan.figure;
        let mut work = Work::new(state);
        work.push(Event::Measured(plan.reading.clone()));
        if let Some(level) = plan.level {
            work.push(Event::MountSpeed { figure: id, level });
        }
        if let Some(run) = plan.charge {
            work.push(sit(SitEvent::Charged {
                figure: id,
                turn: state.turn,
                run,
            }));
        }
        let mover = work.fig(id)?.clone();
        let path = self.jump_obstacles(&mut work, &mover, &plan.path, dice)?;
        let blown = self.roll_mines(&mut work, id, &path, dice)?;
        let start = path[0];
        let (end, heading, length) = match blown {
            Some(e) => (e.at, e.heading_deg, e.along_in),
            None => {
                let end = *path.last().unwrap_or(&start);
                let heading = path
                    .windows(2)
                    .rev()
                    .find(|w| (w[1] - w[0]).norm() > f64::EPSILON)
                    .map_or(work.fig(id)?.placement.facing_deg, |w| {
                        bearing_deg(w[0], w[1])
                    });
                (end, heading, path_length_in(&path))
            }
        };
        work.push(Event::Moved {
            figure: id,
            to_in: end,
            facing_deg: crate::geometry::normalize_deg(
                plan.facing_deg
                    .filter(|_| blown.is_none())
                    .unwrap_or(heading),
            ),
            pace: plan.pace,
            distance_in: length,
            through_rough: false,
        });
        work.push(sit(SitEvent::MovedThisTurn {
            figure: id,
            turn: state.turn,
            moved_in: length,
        }));
        if let Some(e) = blown {
            let name = work.fig(id)?.name.clone();
            work.note(format!(
                "a mine explodes under {name} in the square at {},{}: he stops there",
                e.corner.x, e.corner.y
            ));
            self.blast(&mut work, e.at, self.data.special.mine_blast_in, dice)?;
        }
        Ok(work.into_events())
    }

    /// The enemy minefield squares a move enters, in the order it enters
    /// them.
    pub(super) fn mines_on_path(
        &self,
        state: &GameState,
        side: usize,
        path: &[Point2<f64>],
    ) -> Vec<MineEntry> {
        let side_in = self.data.special.mine_square_in;
        let mut entries: Vec<MineEntry> = state
            .sides
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != side)
            .flat_map(|(_, s)| status::side_of(s).mines)
            .flat_map(|corner| mine_entries(path, corner, side_in))
            .collect();
        entries.sort_by(|a, b| a.along_in.total_cmp(&b.along_in));
        entries
    }

    /// Mine rolls for a move along `path`, one d10 each time it enters a
    /// square, in order; the first mine that goes off stops him where it
    /// went off (returned).
    fn roll_mines(
        &self,
        work: &mut Work,
        id: FigureId,
        path: &[Point2<f64>],
        dice: &mut dyn Dice,
    ) -> Result<Option<MineEntry>, RuleError> {
        let f = work.fig(id)?.clone();
        let entries = self.mines_on_path(&work.now, f.side, path);
        let mut corners: Vec<Point2<f64>> = Vec::new();
        for e in &entries {
            if !corners.contains(&e.corner) {
                corners.push(e.corner);
            }
        }
        for corner in corners {
            let rolls = entries.iter().filter(|e| e.corner == corner).count();
            work.push(Event::Odds {
                purpose: format!(
                    "{} in the minefield square at {},{}",
                    f.name, corner.x, corner.y
                ),
                odds: named(&[(
                    "p_mine_explodes",
                    mine_p(&self.data, u32::try_from(rolls).unwrap_or(u32::MAX)),
                )]),
            });
        }
        for e in entries {
            let face = work.roll1(dice, 10, "mine", Some(id))?;
            if face <= self.data.special.mine_explodes_max {
                return Ok(Some(e));
            }
        }
        Ok(None)
    }

    pub(super) fn plan_leave<'a>(
        &self,
        state: &'a GameState,
        p: &LeaveParams,
    ) -> Result<(&'a Figure, Vec<Point2<f64>>), RuleError> {
        let f = figure(state, &p.figure)?;
        require_active_side(NAME, state, f)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot move", f.name)).by(f.id));
        }
        if st(f).leave_check.is_some_and(|c| c.turn == state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has tried to leave the melee this turn", f.name),
            )
            .by(f.id));
        }
        if st(f).moved_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has moved this turn", f.name),
            )
            .by(f.id));
        }
        crate::rules::common::require_on_table(NAME, state, [p.to_in])?;
        let to = point(p.to_in);
        if self.in_contact_with(state, f).is_empty() || self.left_in_melee(state, f, to).is_none() {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!("{} would not leave a melee by going there", f.name),
            )
            .by(f.id));
        }
        let path = vec![f.placement.center_in_table, to];
        let d = Length::<Inch>::path(path_length_in(&path), &f.placement);
        let allowance = self.data.movement.foot_in;
        if !within(d, allowance) {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} walks {allowance} in out of the melee; that is {:.1} in",
                    f.name,
                    d.value()
                ),
            )
            .by(f.id));
        }
        Ok((f, path))
    }

    /// 5.5: "A figure in base-to-base contact with an enemy figure can
    /// move away without the 'free swing' ... BUT it must pass an
    /// activation check (can only be modified by any leader within 3
    /// inches). If the figure fails the activation roll, then they cannot
    /// move out of melee." A card at or under his experience passes; a face
    /// card only with a leader within command range (the leader's modifier,
    /// no flag bearer's); he walks (house: his walking allowance), once a
    /// turn, in any phase.
    pub(super) fn resolve_leave(
        &self,
        state: &GameState,
        p: &LeaveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (f, path) = self.plan_leave(state, p)?;
        let leader = self.leader_in_range(state, f);
        let mut work = Work::new(state);
        let pile = Self::deck_pile(state, f.side);
        work.push(Event::Odds {
            purpose: format!("{} tries to leave the melee", f.name),
            odds: named(&[(
                "p_leaves",
                morale_odds(&self.data, &pile, f.experience, f.leader, leader),
            )]),
        });
        let card = Self::draw(&mut work, f.side, dice)?;
        let passed = morale_passes(&self.data, card, f.experience, f.leader, leader);
        work.push(sit(SitEvent::LeaveChecked {
            figure: f.id,
            turn: state.turn,
            passed,
        }));
        if !passed {
            work.note(format!(
                "{} fails his check against {}: he cannot move out of the melee",
                f.name, f.experience
            ));
            return Ok(work.into_events());
        }
        let blown = self.roll_mines(&mut work, f.id, &path, dice)?;
        let (to, heading, length) = match blown {
            Some(e) => (e.at, e.heading_deg, e.along_in),
            None => (
                path[1],
                bearing_deg(path[0], path[1]),
                path_length_in(&path),
            ),
        };
        work.note(format!("{} leaves the melee", f.name));
        work.push(Event::Moved {
            figure: f.id,
            to_in: to,
            facing_deg: crate::geometry::normalize_deg(
                p.facing_deg.filter(|_| blown.is_none()).unwrap_or(heading),
            ),
            pace: Pace::Walk,
            distance_in: length,
            through_rough: false,
        });
        work.push(sit(SitEvent::MovedThisTurn {
            figure: f.id,
            turn: state.turn,
            moved_in: length,
        }));
        if let Some(e) = blown {
            self.blast(&mut work, e.at, self.data.special.mine_blast_in, dice)?;
        }
        Ok(work.into_events())
    }

    /// 5.6: every figure may move 1 in at the end of the turn; horses 1 in
    /// per 5 in they moved this turn.
    pub(super) fn resolve_follow(
        &self,
        state: &GameState,
        p: &FollowParams,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "follow-through", &[FOLLOW_THROUGH])?;
        let f = figure(state, &p.figure)?;
        require_active_side(NAME, state, f)?;
        if !in_play(f) || routed(f) {
            return Err(refuse(RefusalKind::CannotDo, format!("{} cannot move", f.name)).by(f.id));
        }
        let s = st(f);
        let moved = if s.moved_turn == Some(state.turn) {
            s.moved_in
        } else {
            0.0
        };
        let allowance = self.data.follow_through_in(f.mounted(), moved);
        crate::rules::common::require_on_table(NAME, state, [p.to_in])?;
        let to = point(p.to_in);
        let d = Length::<Inch>::path((to - f.placement.center_in_table).norm(), &f.placement);
        if !within(d, allowance) {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may follow through {allowance} in; that is {:.2} in",
                    f.name,
                    d.value()
                ),
            )
            .by(f.id));
        }
        Ok(vec![
            Event::Measured(d.reading(format!("{}'s follow-through", f.name), &[allowance])),
            Event::Moved {
                figure: f.id,
                to_in: to,
                facing_deg: crate::geometry::normalize_deg(
                    p.facing_deg.unwrap_or(f.placement.facing_deg),
                ),
                pace: Pace::Walk,
                distance_in: d.value(),
                through_rough: false,
            },
        ])
    }
}

/// The path up to `along` inches, ending at `at`.
fn cut_path(path: &[Point2<f64>], along: f64, at: Point2<f64>) -> Vec<Point2<f64>> {
    let mut out = vec![path[0]];
    let mut done = 0.0;
    for w in path.windows(2) {
        let len = (w[1] - w[0]).norm();
        if done + len >= along {
            break;
        }
        out.push(w[1]);
        done += len;
    }
    out.push(at);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_through_a_square_enters_it_once_and_stopping_inside_once() {
        let c = Point2::new(0.0, 0.0);
        let through = [Point2::new(-1.0, 1.0), Point2::new(5.0, 1.0)];
        let e = mine_entries(&through, c, 3.0);
        assert_eq!(e.len(), 1);
        assert!((e[0].at - Point2::new(0.0, 1.0)).norm() < 1e-12);
        assert!((e[0].along_in - 1.0).abs() < 1e-12);
        let stop = [Point2::new(-1.0, 1.0), Point2::new(1.5, 1.5)];
        assert_eq!(mine_entries(&stop, c, 3.0).len(), 1);
        // Moving on from inside: one more.
        let on = [Point2::new(1.5, 1.5), Point2::new(5.0, 1.5)];
        assert_eq!(mine_entries(&on, c, 3.0).len(), 1);
        // In, out and in again: twice; a leg along two waypoints inside once.
        let twice = [
            Point2::new(-1.0, 1.0),
            Point2::new(4.0, 1.0),
            Point2::new(4.0, 2.0),
            Point2::new(1.0, 2.0),
        ];
        assert_eq!(mine_entries(&twice, c, 3.0).len(), 2);
        let miss = [Point2::new(-1.0, 5.0), Point2::new(5.0, 5.0)];
        assert!(mine_entries(&miss, c, 3.0).is_empty());
    }
}
