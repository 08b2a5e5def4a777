//! Movement: the allowance (regular, raw dice, cavalry by level), the walk
//! along a path paying terrain, walls and wounds and stopping within
//! 2.5 cm of an enemy; `move`, `reform` and `drag`.
//!
//! # Conventions
//! Paths are table inches; allowances and costs are cm (`cm_per_in`).

use nalgebra::{Point2, Vector2};

use super::CavalryMove;
use super::action::{DragParams, MoveParams, ReformParams};
use super::engine::{
    LittleColonialRules, card_in_play, cavalry, fig_event, fights_on, gathered, is_nco, is_officer,
    policy, refuse, st,
};
use super::event::Event as LcEvent;
use super::status::{Level, WoundKind, WoundedPolicy};
use super::terrain_factor;
use crate::core::dice::{Dice, total};
use crate::core::{Length, RefusalKind};
use crate::geometry::{
    Placement, RangeMethod, TerrainKind, path_length_in, path_turns_deg, point_in_polygon,
    range_in, segment_crosses, walk_path,
};
use crate::rules::RuleError;
use crate::rules::common::{Work, figure};
use crate::rules::stand_to::Wound;
use crate::rules::{Event, Figure, FigureId, GameState, Pace};

/// Step of the walk along a path when terrain costs are added up, inches.
const WALK_STEP_IN: f64 = 0.02;
/// Slack on a measured move before it is refused, cm.
const MOVE_SLACK_CM: f64 = 0.1;
/// A dragged man ends this far behind his helper, and a second helper this
/// far beside him, table inches (a foot base).
const DRAG_OFFSET_IN: f64 = 1.0;

/// How a figure moves.
#[derive(Debug, Clone)]
pub(super) enum MoveKind {
    /// A horseman: base + dice by his level.
    Cavalry(CavalryMove),
    /// Raw infantry: 3d6 cm, all of it.
    Raw,
    /// Regular and better infantry (and every officer): up to 20 cm.
    Regular,
}

impl MoveKind {
    fn max_turns(&self) -> u32 {
        match self {
            Self::Cavalry(m) => m.turns,
            _ => 0,
        }
    }
}

/// Where a walk along a path ended.
#[derive(Debug, Clone)]
pub(super) struct Walked {
    pub to: Point2<f64>,
    pub heading_deg: f64,
    pub walked_in: f64,
    /// The enemy he stopped within 2.5 cm of.
    pub stopped_by: Option<String>,
}

/// What `move` checked.
pub(super) struct MovePlan {
    pub figure: FigureId,
    pub path: Vec<Point2<f64>>,
}

/// What `drag` checked.
pub(super) struct DragPlan {
    pub wounded: FigureId,
    pub helpers: Vec<FigureId>,
    pub cost: f64,
    pub to: Point2<f64>,
}

impl LittleColonialRules {
    /// How a figure moves: mounted cavalry by level, raw soldiers by dice,
    /// the rest (and every officer and NCO) as regulars.
    pub(super) fn move_kind(&self, f: &Figure) -> Result<MoveKind, RuleError> {
        let level = st(f).level;
        let leader = is_officer(f) || matches!(f.rank, crate::rules::Rank::Nco);
        if cavalry(f) && f.mounted() {
            let m = self
                .data
                .cavalry
                .movement
                .get(level.name())
                .ok_or_else(|| {
                    refuse(
                        RefusalKind::NotInTables,
                        format!("no cavalry move for `{}`", level.name()),
                    )
                })?;
            Ok(MoveKind::Cavalry(m.clone()))
        } else if level == Level::Raw && !leader {
            Ok(MoveKind::Raw)
        } else {
            Ok(MoveKind::Regular)
        }
    }

    /// The figure's allowance this move, cm (rolled for raw soldiers and
    /// cavalry), whether he must use it all, and his turns.
    pub(super) fn allowance(
        &self,
        work: &mut Work,
        f: &Figure,
        dice: &mut dyn Dice,
    ) -> Result<(f64, bool, u32), RuleError> {
        Ok(match self.move_kind(f)? {
            MoveKind::Cavalry(m) => {
                let r = work.roll(dice, m.dice as usize, 6, "cavalry move", Some(f.id))?;
                (m.base_cm + f64::from(total(&r)), m.must_move_all, m.turns)
            }
            MoveKind::Raw => {
                let n = self.data.movement.raw_dice as usize;
                let r = work.roll(dice, n, 6, "raw move", Some(f.id))?;
                (self.data.raw_move_cm(total(&r)), true, 0)
            }
            MoveKind::Regular => (self.data.movement.regular_cm, false, 0),
        })
    }

    /// The movement cost factor at a point: the worst terrain area he is
    /// in (clear: 1).
    fn terrain_cost_at(&self, state: &GameState, p: Point2<f64>) -> f64 {
        state
            .terrain
            .iter()
            .filter(|a| a.is(TerrainKind::Rough) && point_in_polygon(&a.polygon_in, p))
            .map(|a| terrain_factor(&self.data, &a.name).unwrap_or(1.0))
            .fold(1.0, f64::max)
    }

    /// Every rough area has a movement factor in the data.
    pub(super) fn check_terrain(&self, state: &GameState) -> Result<(), RuleError> {
        for a in state.terrain.iter().filter(|a| a.is(TerrainKind::Rough)) {
            if terrain_factor(&self.data, &a.name).is_none() {
                let known: Vec<&str> = self
                    .data
                    .movement
                    .terrain_factor
                    .keys()
                    .map(String::as_str)
                    .collect();
                return Err(RuleError::Unknown {
                    what: "terrain movement factor",
                    name: format!(
                        "`{}` is rough: name it with one of {} or add it to [move.terrain_factor]",
                        a.name,
                        known.join(", ")
                    ),
                });
            }
        }
        Ok(())
    }

    /// Edge-to-edge gaps from a base at `at` to each enemy in the fight,
    /// table inches.
    fn enemy_gaps(&self, state: &GameState, f: &Figure, at: Point2<f64>) -> Vec<(String, f64)> {
        let me = Placement {
            center_in_table: at,
            ..f.placement
        };
        state
            .figures
            .iter()
            .filter(|e| e.side != f.side && fights_on(e))
            .map(|e| {
                let gap = range_in(&me, &e.placement, RangeMethod::EdgeToEdge).value_in;
                (e.name.clone(), gap)
            })
            .collect()
    }

    /// Walks `f` along `path` (on past its end when `all` of the allowance
    /// must be used) with `allowance_cm`, paying the terrain's cost times
    /// `cost_factor`, a d10 for each wall, and stopping within 2.5 cm of
    /// an enemy he moves toward.
    #[allow(clippy::too_many_arguments)] // one walk: each value is needed
    pub(super) fn walk(
        &self,
        work: &mut Work,
        f: &Figure,
        path: &[Point2<f64>],
        allowance_cm: f64,
        all: bool,
        cost_factor: f64,
        dice: &mut dyn Dice,
    ) -> Result<Walked, RuleError> {
        let state = work.now.clone();
        let start = path.first().copied().unwrap_or(f.placement.center_in_table);
        let total_in = path_length_in(path);
        let reach_in = if all {
            self.inches(allowance_cm) + WALK_STEP_IN
        } else {
            total_in
        };
        let walls: Vec<&crate::geometry::TerrainArea> = state
            .terrain
            .iter()
            .filter(|a| a.is(TerrainKind::Obstacle))
            .collect();
        let stop_in = self.inches(self.data.movement.stop_near_enemy_cm);
        let mut gaps = self.enemy_gaps(&state, f, start);
        let mut crossed: Vec<usize> = walls
            .iter()
            .enumerate()
            .filter(|(_, a)| point_in_polygon(&a.polygon_in, start))
            .map(|(i, _)| i)
            .collect();
        let (mut budget, mut walked, mut here) = (allowance_cm, 0.0, start);
        let mut heading = f.placement.facing_deg;
        let mut stopped_by = None;
        while walked + WALK_STEP_IN <= reach_in + 1e-9 {
            let Some((next, h)) = walk_path(path, walked + WALK_STEP_IN, all) else {
                break;
            };
            if !state.on_table(next) {
                break;
            }
            let mut cost = self.cm(WALK_STEP_IN) * self.terrain_cost_at(&state, next) * cost_factor;
            for (i, wall) in walls.iter().enumerate() {
                if !crossed.contains(&i) && segment_crosses(here, next, &wall.polygon_in) {
                    crossed.push(i);
                    let d = work.roll1(dice, self.data.movement.wall_die, "wall", Some(f.id))?;
                    cost += f64::from(d);
                    work.note(format!("crossing {} costs {d} cm", wall.name));
                }
            }
            if cost > budget + 1e-9 {
                break;
            }
            budget -= cost;
            walked += WALK_STEP_IN;
            here = next;
            heading = h;
            let now = self.enemy_gaps(&state, f, next);
            let closing = now
                .iter()
                .zip(&gaps)
                .find(|((_, g), (_, before))| *g <= stop_in && *g < *before - 1e-12);
            if let Some(((name, _), _)) = closing {
                stopped_by = Some(name.clone());
                break;
            }
            gaps = now;
        }
        if stopped_by.is_none() && !all && total_in - walked < WALK_STEP_IN {
            // The last part-step of a path that fits: end on its point.
            walked = total_in;
            here = *path.last().unwrap_or(&here);
        }
        Ok(Walked {
            to: here,
            heading_deg: heading,
            walked_in: walked,
            stopped_by,
        })
    }

    pub(super) fn check_move(
        &self,
        state: &GameState,
        p: &MoveParams,
    ) -> Result<MovePlan, RuleError> {
        let f = figure(state, &p.figure)?;
        self.commanded(state, f, true)?;
        Self::may_move(f)?;
        if p.path_in.is_empty() {
            return Err(refuse(RefusalKind::Malformed, "give the path's points"));
        }
        let mut path = vec![f.placement.center_in_table];
        path.extend(p.path_in.iter().map(|q| Point2::new(q[0], q[1])));
        let turns = path_turns_deg(&path);
        let max_turns = self.move_kind(f)?.max_turns();
        if turns.len() > max_turns as usize
            || turns
                .iter()
                .any(|t| *t > self.data.cavalry.turn_max_deg + 1e-9)
        {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may make {max_turns} turns of {} degrees or less; the path has {}",
                    f.name,
                    self.data.cavalry.turn_max_deg,
                    turns.len()
                ),
            )
            .by(f.id));
        }
        Ok(MovePlan { figure: f.id, path })
    }

    /// Gathered wounded men: "movement is NOT allowed".
    fn may_move(f: &Figure) -> Result<(), RuleError> {
        if gathered(f) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} is wounded and gathered behind the lines: movement is NOT allowed",
                    f.name
                ),
            )
            .by(f.id));
        }
        Ok(())
    }

    /// A lightly wounded man pays double; the rest pay the terrain's cost.
    fn wound_cost(&self, f: &Figure) -> f64 {
        if st(f).wound == Some(WoundKind::Light) {
            self.data.wounded.light_cost_factor
        } else {
            1.0
        }
    }

    pub(super) fn resolve_move(
        &self,
        state: &GameState,
        p: &MoveParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.check_move(state, p)?;
        let mut work = Work::new(state);
        let f = work.fig(plan.figure)?.clone();
        let (allowance, all, _) = self.allowance(&mut work, &f, dice)?;
        let cost = self.wound_cost(&f);
        if cost > 1.0 {
            work.note(format!("{} is wounded: movement costs x{cost}", f.name));
        }
        let walk = self.walk(&mut work, &f, &plan.path, allowance, all, cost, dice)?;
        let total_in = path_length_in(&plan.path);
        if let Some(enemy) = &walk.stopped_by {
            work.note(format!(
                "{} stops within {} cm of {enemy}: resolve the close combat",
                f.name, self.data.movement.stop_near_enemy_cm
            ));
        } else if !all && total_in - walk.walked_in > self.inches(MOVE_SLACK_CM) + WALK_STEP_IN {
            work.note(format!(
                "{} runs out of movement {:.1} cm short of the end of the path",
                f.name,
                self.cm(total_in - walk.walked_in)
            ));
        }
        work.push(Event::Measured(
            self.in_cm(Length::path(walk.walked_in, &f.placement))
                .reading(format!("{}'s move", f.name), &[allowance]),
        ));
        Self::mark_acted(&mut work, &[f.id]);
        push_moved(&mut work, f.id, walk.to, walk.heading_deg, walk.walked_in);
        self.ruthless_wounded_taken(&mut work, f.id)?;
        Ok(work.into_events())
    }

    /// "However, if at any time an enemy figure comes adjacent (in base to
    /// base/figure contact) to any of the enemy wounded, they are
    /// immediately declared and considered dead": a Ruthless side's
    /// seriously wounded beside the figure that moved die (after any move:
    /// a walk, a reform, a drag, a demoralised man's flight).
    pub(super) fn ruthless_wounded_taken(
        &self,
        work: &mut Work,
        mover: FigureId,
    ) -> Result<(), RuleError> {
        let m = work.fig(mover)?.clone();
        let adjacent = self.data.close_combat.flank_gap_cm;
        let taken: Vec<(FigureId, String, crate::core::Reading)> = work
            .now
            .figures
            .iter()
            .filter(|w| {
                w.side != m.side
                    && w.wound == Some(Wound::Serious)
                    && policy(&work.now, w.side) == Some(WoundedPolicy::Ruthless)
            })
            .filter_map(|w| {
                let gap = self.in_cm(Length::between(
                    &w.placement,
                    &m.placement,
                    RangeMethod::EdgeToEdge,
                ));
                let call = gap.at_most(adjacent);
                call.value.then(|| {
                    let what = format!("{} to {}, base to base", m.name, w.name);
                    (w.id, w.name.clone(), gap.reading_with(what, &call))
                })
            })
            .collect();
        for (id, name, reading) in taken {
            work.push(Event::Measured(reading));
            work.note(format!(
                "{} reaches {name}, wounded and left by a Ruthless side: he is dead",
                m.name
            ));
            work.push(Event::Wounded {
                figure: id,
                wound: Wound::Killed,
                mount: false,
            });
        }
        Ok(())
    }

    /// "Any number of adjacent soldiers can move 5 cm to close up a gap
    /// within a formation. (May only be ordered by officers and NCO's)"
    pub(super) fn check_reform(
        &self,
        state: &GameState,
        p: &ReformParams,
    ) -> Result<Vec<(FigureId, Point2<f64>, crate::core::Reading)>, RuleError> {
        let (_, owner) = self.card_and_owner(state)?;
        if !(is_officer(owner) || is_nco(owner)) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} is no officer or NCO: only they order a reform",
                    owner.name
                ),
            ));
        }
        let (_, unit) = state.unit_named(&p.unit).ok_or(RuleError::Unknown {
            what: "unit",
            name: p.unit.clone(),
        })?;
        if p.moves.is_empty() {
            return Err(refuse(
                RefusalKind::Malformed,
                "name the figures that close up",
            ));
        }
        let mut plan = Vec::new();
        for m in &p.moves {
            let f = figure(state, &m.figure)?;
            if !unit.figures.contains(&f.id) {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "{} is not of {}: a reform closes up its own formation",
                        f.name, unit.name
                    ),
                )
                .by(f.id));
            }
            if plan.iter().any(|(id, _, _)| *id == f.id) {
                return Err(refuse(
                    RefusalKind::Malformed,
                    format!("{} is named twice", f.name),
                ));
            }
            self.commanded(state, f, true)?;
            Self::may_move(f)?;
            let to = Point2::new(m.to_in[0], m.to_in[1]);
            let d = self.in_cm(Length::path(
                (to - f.placement.center_in_table).norm(),
                &f.placement,
            ));
            let limit = self.data.movement.reform_cm;
            if d.value() > limit + MOVE_SLACK_CM {
                return Err(refuse(
                    RefusalKind::TooFar,
                    format!(
                        "{} would move {d}: a reform moves {limit} cm at most",
                        f.name
                    ),
                )
                .by(f.id));
            }
            plan.push((
                f.id,
                to,
                d.reading(format!("{}'s reform", f.name), &[limit]),
            ));
        }
        Ok(plan)
    }

    pub(super) fn resolve_reform(
        &self,
        state: &GameState,
        p: &ReformParams,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.check_reform(state, p)?;
        let mut work = Work::new(state);
        let ids: Vec<FigureId> = plan.iter().map(|(id, _, _)| *id).collect();
        Self::mark_acted(&mut work, &ids);
        for (id, to, reading) in plan {
            let f = work.fig(id)?.clone();
            let facing = f.placement.facing_deg;
            let d = (to - f.placement.center_in_table).norm();
            work.push(Event::Measured(reading));
            push_moved(&mut work, id, to, facing, d);
            self.ruthless_wounded_taken(&mut work, id)?;
        }
        Ok(work.into_events())
    }

    /// One or two healthy men of a Compassionate side drag a seriously
    /// wounded comrade: his wound and the number of helpers give their
    /// movement cost (a torso wound x4, x2 with two; a leg x3, x1 with
    /// two).
    pub(super) fn check_drag(
        &self,
        state: &GameState,
        p: &DragParams,
    ) -> Result<DragPlan, RuleError> {
        let (_, holder) = self.card_holder(state)?;
        let w = figure(state, &p.wounded)?;
        let kind = st(w)
            .wound
            .filter(|k| k.serious() && w.wound == Some(Wound::Serious));
        let Some(kind) = kind else {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not seriously wounded: only they are dragged", w.name),
            )
            .by(w.id));
        };
        Self::may_move(w)?;
        if w.side != holder.side() {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                format!("{} is not of the card's side", w.name),
            ));
        }
        // A Ruthless side "can at NO TIME during the game attempt to give
        // aid": the engine holds the written slips and does not stop the
        // attempt; the other side's challenge catches it.
        if !Self::wounded_rule(state) {
            return Err(refuse(
                RefusalKind::CannotDo,
                "the wounded rule is not in play: both sides must write down how they treat their wounded",
            ));
        }
        self.one_soldier(state, p.helpers.len())?;
        let n = p.helpers.len();
        if !(1..=2).contains(&n) {
            return Err(refuse(
                RefusalKind::Malformed,
                "one or two men drag a wounded man",
            ));
        }
        let mut helpers = Vec::new();
        for h in &p.helpers {
            let h = figure(state, h)?;
            self.commanded(state, h, true)?;
            Self::may_move(h)?;
            let gap = range_in(&h.placement, &w.placement, RangeMethod::EdgeToEdge).value_in;
            if self.cm(gap) > self.data.close_combat.contact_cm {
                return Err(refuse(
                    RefusalKind::NotInContact,
                    format!(
                        "{} is {:.1} cm from {}: he must be beside him",
                        h.name,
                        self.cm(gap),
                        w.name
                    ),
                )
                .by(h.id));
            }
            helpers.push(h.id);
        }
        let costs = match kind {
            WoundKind::Torso => self.data.wounded.torso_drag_cost,
            _ => self.data.wounded.leg_drag_cost,
        };
        Ok(DragPlan {
            wounded: w.id,
            helpers,
            cost: costs[n - 1],
            to: Point2::new(p.to_in[0], p.to_in[1]),
        })
    }

    pub(super) fn resolve_drag(
        &self,
        state: &GameState,
        p: &DragParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.check_drag(state, p)?;
        let mut work = Work::new(state);
        let lead = work.fig(plan.helpers[0])?.clone();
        let (allowance, _, _) = self.allowance(&mut work, &lead, dice)?;
        let path = [lead.placement.center_in_table, plan.to];
        let walk = self.walk(&mut work, &lead, &path, allowance, false, plan.cost, dice)?;
        let wounded = work.fig(plan.wounded)?.name.clone();
        work.note(format!(
            "{} drags {wounded} {:.1} cm (movement costs x{})",
            lead.name,
            self.cm(walk.walked_in),
            plan.cost
        ));
        work.push(Event::Measured(
            self.in_cm(Length::path(walk.walked_in, &lead.placement))
                .reading(
                    format!("{} drags {wounded}", lead.name),
                    &[allowance / plan.cost],
                ),
        ));
        Self::mark_acted(&mut work, &plan.helpers);
        if let Some(card) = card_in_play(state) {
            work.push(fig_event(LcEvent::AidAttempted {
                side: lead.side,
                turn: state.turn,
                card: card.to_owned(),
            }));
        }
        let dir = Vector2::new(
            walk.heading_deg.to_radians().cos(),
            walk.heading_deg.to_radians().sin(),
        );
        let side = Vector2::new(-dir.y, dir.x);
        push_moved(
            &mut work,
            lead.id,
            walk.to,
            walk.heading_deg,
            walk.walked_in,
        );
        push_moved(
            &mut work,
            plan.wounded,
            walk.to - dir * DRAG_OFFSET_IN,
            walk.heading_deg,
            walk.walked_in,
        );
        if let Some(second) = plan.helpers.get(1) {
            push_moved(
                &mut work,
                *second,
                walk.to + side * DRAG_OFFSET_IN,
                walk.heading_deg,
                walk.walked_in,
            );
        }
        for id in plan.helpers.iter().chain([&plan.wounded]) {
            self.ruthless_wounded_taken(&mut work, *id)?;
        }
        Ok(work.into_events())
    }
}

/// A figure walked to `to`, facing the way he went.
fn push_moved(work: &mut Work, id: FigureId, to: Point2<f64>, heading_deg: f64, distance_in: f64) {
    work.push(Event::Moved {
        figure: id,
        to_in: to,
        facing_deg: crate::geometry::normalize_deg(heading_deg),
        pace: Pace::Walk,
        distance_in,
        through_rough: false,
    });
}
