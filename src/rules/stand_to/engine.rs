//! The Stand To! engine: checks commands, rolls, and turns results into
//! events. Everything numeric comes from [`StandTo`] data; this file holds
//! the procedure the data cannot express.

use nalgebra::Point2;

use super::calc::{
    self, D6, FireSituation, MeleeSide, SaveSituation, Struck, combine_wounds, fire_odds,
    fire_outcome, melee_odds, melee_outcome, outnumbered_odds, outnumbered_outcome, save_number,
};
use super::data::{ExperienceLevel, SnapRanges, StandTo, WeaponData, Wound};
use crate::core::dice::{Dice, DieRoll, total};
use crate::core::odds::{NamedOdds, named, probability};
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::{
    self, Band, Call, Cover, Measured, Placement, RangeMethod, Sight, TerrainKind, in_cone,
    length_inside_in, line_of_sight,
};
use crate::rules::{
    AimUse, Command, Event, Figure, FigureId, FireMode, GameState, ObstacleStage, OrderVia, Pace,
    Rank, SideKind, StatusOf,
};
use crate::rules::{RuleError, RuleSet};

/// Names of the three range bands, shortest first.
pub const BAND_NAMES: [&str; 3] = ["short", "medium", "long"];

/// How far past an obstacle a crossing figure is placed, rule inches: "on
/// the opposite side but still in contact" is at most a base's depth.
pub const OBSTACLE_CROSS_MAX_IN: f64 = 2.5;

/// Facing uncertainty assumed for a gun cone when the camera gives none,
/// degrees (the front mark is a 40 degree arc; its centre is found to a few
/// degrees).
pub const GUN_FACING_SIGMA_DEG: f64 = 2.0;

/// Path heading changes below this many degrees are not turns (measuring
/// noise along a straight move).
const STRAIGHT_TOLERANCE_DEG: f64 = 1.0;

/// Status key set on a fanatic once he has started charging (value: the
/// name of the enemy he charges). From then on he reacts to nothing else.
pub const CHARGING_KEY: &str = "charging";
/// Side status key set by the referee's `green_sides`: the side's experience
/// rolls lose the green penalty.
pub const GREEN_KEY: &str = "green";

/// An order name as the vocabularies spell it: lower case, words joined
/// by `-`.
pub fn signal_name(order: &str) -> String {
    order
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
        .to_lowercase()
}

/// Stand To! as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct StandToRules {
    /// The rule data (player editable).
    pub data: StandTo,
}

/// Everything a shot depends on, measured and looked up.
#[derive(Debug, Clone)]
pub struct FirePlan {
    /// Range in rule inches.
    pub range: Measured,
    pub band: Call<Band>,
    pub band_name: String,
    pub sight: Sight,
    pub situation: FireSituation,
}

/// Events produced so far, applied to a scratch copy of the state so that
/// later steps see earlier results.
struct Scratch {
    state: GameState,
    events: Vec<Event>,
}

impl Scratch {
    fn new(state: &GameState) -> Self {
        Self {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    fn push(&mut self, e: Event) {
        self.state.apply(&e);
        self.events.push(e);
    }

    fn roll(
        &mut self,
        dice: &mut dyn Dice,
        purpose: &str,
        figure: Option<FigureId>,
        n: usize,
    ) -> Result<Vec<DieRoll>, RuleError> {
        let rolled = dice.roll_n(n, D6)?;
        self.push(Event::Rolled {
            purpose: purpose.to_owned(),
            figure,
            dice: rolled.clone(),
        });
        Ok(rolled)
    }

    fn note(&mut self, text: impl Into<String>) {
        self.push(Event::Note { text: text.into() });
    }

    fn measured<T>(&mut self, what: &str, m: Measured, call: &Call<T>) {
        self.push(Event::Measured(
            Length::<Inch>::from_measured(m).reading_with(what, call),
        ));
    }
}

/// This rule set refuses the command now, for a rule of `kind`.
fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    crate::rules::common::refusal(super::NAME, kind, why)
}

fn figure(state: &GameState, id: FigureId) -> Result<&Figure, RuleError> {
    state.figure(id).ok_or(RuleError::Unknown {
        what: "figure",
        name: id.0.to_string(),
    })
}

impl StandToRules {
    /// The built-in data.
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: StandTo::builtin()?,
        })
    }

    /// A new figure's experience number: one die, less the referee's
    /// penalty for green units, never below 1.
    pub fn starting_experience(
        &self,
        dice: &mut dyn Dice,
        green: bool,
    ) -> Result<(u8, DieRoll), RuleError> {
        let roll = dice.roll(D6)?;
        let penalty = if green {
            u32::from(self.data.experience.green_penalty)
        } else {
            0
        };
        let n = roll.face.saturating_sub(penalty).max(1);
        Ok((u8::try_from(n).unwrap_or(u8::MAX), roll))
    }

    /// The side kind of a figure.
    pub fn side_kind(state: &GameState, f: &Figure) -> SideKind {
        state.sides.get(f.side).map_or(SideKind::Native, |s| s.kind)
    }

    /// The experience level of a figure.
    pub fn level(&self, state: &GameState, f: &Figure) -> Result<&ExperienceLevel, RuleError> {
        self.data
            .level(f.experience, Self::side_kind(state, f))
            .ok_or(RuleError::Unknown {
                what: "experience number",
                name: f.experience.to_string(),
            })
    }

    fn ignores_light(&self, state: &GameState, f: &Figure) -> bool {
        self.level(state, f).is_ok_and(|l| l.light_wounds_ignored)
    }

    fn wound_penalty(&self, state: &GameState, f: &Figure) -> i32 {
        if f.wound == Some(Wound::Light) && !self.ignores_light(state, f) {
            self.data.damage.wounds.light_ability_penalty
        } else {
            0
        }
    }

    /// Range between two figures in rule inches, measured as `method` says.
    pub fn rule_range(
        &self,
        state: &GameState,
        a: &Figure,
        b: &Figure,
        method: RangeMethod,
    ) -> Measured {
        state
            .scale
            .rule_from_table(geometry::range_in(&a.placement, &b.placement, method))
    }

    fn table_in(&self, state: &GameState, rule_in: f64) -> f64 {
        state.scale.table_from_rule_in(rule_in)
    }

    fn sight(&self, state: &GameState, a: &Placement, b: &Placement) -> Sight {
        let reach = self.table_in(state, self.data.measure.cover_reach_in);
        line_of_sight(a, b, &state.terrain, reach)
    }

    /// The targets a figure must choose from, by the rules' priority: (1) the
    /// enemy he is aiming at; (2) the nearest enemy group that is a danger
    /// (charging, in melee with a friend, or with the firer in its weapon's
    /// range); (3) the nearest enemy group. Only enemies he can see count.
    /// One of the returned group is chosen at random.
    pub fn target_priority(&self, state: &GameState, shooter: FigureId) -> Vec<FigureId> {
        let Some(s) = state.figure(shooter) else {
            return Vec::new();
        };
        let visible: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|t| t.side != s.side && t.alive() && !t.concealed)
            .filter(|t| self.sight(state, &s.placement, &t.placement).clear.value)
            .collect();
        if let Some(aimed) = s.aiming_at
            && visible.iter().any(|t| t.id == aimed)
        {
            return vec![aimed];
        }
        let range = |t: &Figure| {
            self.rule_range(state, s, t, self.data.measure.fire)
                .value_in
        };
        let danger = |t: &Figure| {
            t.pace == Pace::Charge
                || self
                    .engaged_with(state, t)
                    .iter()
                    .any(|id| state.figure(*id).is_some_and(|f| f.side == s.side))
                || self
                    .data
                    .weapon(&t.weapon)
                    .is_some_and(|w| range(t) <= w.range_in[2])
        };
        let group = |cands: Vec<&Figure>| -> Vec<FigureId> {
            let Some(nearest) = cands.iter().min_by(|a, b| range(a).total_cmp(&range(b))) else {
                return Vec::new();
            };
            cands
                .iter()
                .filter(|t| {
                    state
                        .scale
                        .rule_from_table(geometry::range_in(
                            &nearest.placement,
                            &t.placement,
                            RangeMethod::CentreToCentre,
                        ))
                        .value_in
                        <= self.data.fire.target_group_in
                })
                .map(|t| t.id)
                .collect()
        };
        let dangerous = group(visible.iter().copied().filter(|t| danger(t)).collect());
        if dangerous.is_empty() {
            group(visible)
        } else {
            dangerous
        }
    }

    /// The enemy a fanatic must charge: the closest one he sees. None for a
    /// figure who is not a fanatic, or who sees no enemy.
    pub fn forced_charge_target(&self, state: &GameState, f: &Figure) -> Option<FigureId> {
        if !self.level(state, f).is_ok_and(|l| l.charges_closest_enemy) || !f.active() {
            return None;
        }
        state
            .figures
            .iter()
            .filter(|o| o.side != f.side && o.alive() && !o.concealed)
            .filter(|o| self.sight(state, &f.placement, &o.placement).clear.value)
            .map(|o| {
                let r = self.rule_range(state, f, o, RangeMethod::CentreToCentre);
                (o.id, r.value_in)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(id, _)| id)
    }

    /// A fanatic who has started charging: he reacts to nothing else.
    pub fn charging_fanatic(&self, state: &GameState, f: &Figure) -> bool {
        self.level(state, f).is_ok_and(|l| l.charges_closest_enemy)
            && (f.pace == Pace::Charge || f.status.contains_key(CHARGING_KEY))
    }

    /// Living enemies within the melee engagement distance of a figure.
    pub fn engaged_with(&self, state: &GameState, f: &Figure) -> Vec<FigureId> {
        state
            .figures
            .iter()
            .filter(|o| o.side != f.side && o.active() && o.id != f.id)
            .filter(|o| {
                self.rule_range(state, f, o, self.data.measure.melee)
                    .at_most(self.data.melee.engagement_in)
                    .value
            })
            .map(|o| o.id)
            .collect()
    }

    fn phase_name(&self, state: &GameState) -> String {
        self.data
            .turn
            .phases
            .get(state.phase)
            .cloned()
            .unwrap_or_default()
    }

    fn require_phase(&self, state: &GameState, phase: &str) -> Result<(), RuleError> {
        let now = self.phase_name(state);
        if now == phase {
            Ok(())
        } else {
            Err(refuse(
                RefusalKind::WrongPhase,
                format!("this is the {now} phase, not {phase}"),
            ))
        }
    }

    fn require_own_turn(state: &GameState, f: &Figure) -> Result<(), RuleError> {
        if f.side != state.active_side {
            return Err(refuse(
                RefusalKind::NotYourTurn,
                format!("{} acts only in his own side's turn", f.name),
            )
            .by(f.id));
        }
        Ok(())
    }

    fn require_able(state: &GameState, f: &Figure) -> Result<(), RuleError> {
        if !f.active() {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is out of the fight", f.name),
            )
            .by(f.id));
        }
        if f.idle_until_turn.is_some_and(|t| t >= state.turn) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} does nothing this turn", f.name),
            )
            .by(f.id));
        }
        Ok(())
    }

    fn weapon(&self, name: &str) -> Result<&WeaponData, RuleError> {
        self.data.weapon(name).ok_or(RuleError::Unknown {
            what: "weapon",
            name: name.to_owned(),
        })
    }

    /// The movement save of a figure (its pace, or its mount's speed).
    fn movement_save(&self, f: &Figure) -> u32 {
        let s = &self.data.saves;
        if let Some(level) = f.mount_level.filter(|_| f.mounted()) {
            return match self
                .data
                .mount
                .speed
                .get(usize::from(level))
                .map(|s| s.name.as_str())
            {
                Some("walk") => s.mounted_walk,
                Some("trot") => s.mounted_trot,
                Some("canter") => s.mounted_canter,
                _ => s.mounted_gallop,
            };
        }
        match f.pace {
            Pace::Stationary => s.stationary,
            Pace::Crawl => s.crawling,
            Pace::Walk => s.walking,
            Pace::Doubletime => s.doubletime,
            Pace::Charge => s.charging,
            Pace::Evade => s.evading,
        }
    }

    /// The band edges a weapon uses in a fire mode, rule inches.
    pub fn band_edges(&self, w: &WeaponData, mode: FireMode) -> Result<[f64; 3], RuleError> {
        Ok(match mode {
            FireMode::Aimed => w.range_in,
            FireMode::Snap => {
                let base = match w.snap_ranges {
                    SnapRanges::Own => w.range_in,
                    SnapRanges::Revolver => self.weapon("revolver")?.range_in,
                };
                base.map(|r| r * w.snap_range_factor)
            }
        })
    }

    /// Measures and looks up everything about a shot.
    pub fn fire_plan(
        &self,
        state: &GameState,
        shooter: FigureId,
        target: FigureId,
        mode: FireMode,
        aim_use: AimUse,
        at_mount: bool,
    ) -> Result<FirePlan, RuleError> {
        let s = figure(state, shooter)?;
        let t = figure(state, target)?;
        let w = self.weapon(&s.weapon)?;
        let range = self.rule_range(state, s, t, self.data.measure.fire);
        let band = geometry::band_of(range, &self.band_edges(w, mode)?);
        let Band::Within(i) = band.value else {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "{} is out of range of {}'s {} ({:.1} in)",
                    t.name, s.name, w.name, range.value_in
                ),
            )
            .by(t.id));
        };
        let needed = if s.mounted() {
            w.hit_mounted[i]
        } else {
            w.hit_dismounted[i]
        };
        let ability = self.level(state, s)?.firing - self.wound_penalty(state, s);
        let sight = self.sight(state, &s.placement, &t.placement);
        let leader = t.leader;
        let save = save_number(
            &self.data.saves,
            &SaveSituation {
                movement: self.movement_save(t),
                prone: t.prone,
                soft_cover: sight.cover.value == Cover::Soft,
                hard_cover: sight.cover.value == Cover::Hard,
                leader,
            },
        );
        let aim_bonus = mode == FireMode::Aimed && s.aim_ready && s.aiming_at == Some(target);
        Ok(FirePlan {
            range,
            band,
            band_name: BAND_NAMES[i].to_owned(),
            sight,
            situation: FireSituation {
                needed,
                ability,
                save,
                leader,
                aim_bonus,
                aim_use,
                note1: w.notes.contains(&1),
                mounted_target: t.mounted(),
                at_mount: at_mount && t.mounted(),
            },
        })
    }

    /// Shots allowed per turn for a mode.
    fn shots_allowed(w: &WeaponData, mode: FireMode, rapid: bool) -> u32 {
        match mode {
            FireMode::Aimed => 1,
            // A bolt-action rifle snaps like a breechloader unless it pulls
            // rounds from the magazine.
            FireMode::Snap if w.rapid_aimed_load_turns.is_some() && !rapid => 1,
            FireMode::Snap => w.snapshots_per_turn,
        }
    }

    fn load_turns(w: &WeaponData, rapid: bool) -> u32 {
        match (rapid, w.rapid_aimed_load_turns) {
            (true, Some(t)) => t,
            _ => w.aimed_load_turns,
        }
    }

    fn check_fire(
        &self,
        state: &GameState,
        shooter: FigureId,
        target: FigureId,
        mode: FireMode,
        rapid: bool,
    ) -> Result<(), RuleError> {
        self.require_phase(state, "fire")?;
        let s = figure(state, shooter)?;
        let t = figure(state, target)?;
        Self::require_own_turn(state, s)?;
        Self::require_able(state, s)?;
        if s.aiming_at.is_some() && !s.aim_ready {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} spends this turn aiming without firing", s.name),
            )
            .by(s.id));
        }
        if !t.alive() || t.side == s.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                format!("{} is not an enemy target", t.name),
            )
            .by(t.id));
        }
        let w = self.weapon(&s.weapon)?;
        if w.gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                "a gun fires its cone (fire-gun)",
            ));
        }
        if s.shots_this_turn >= Self::shots_allowed(w, mode, rapid) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has no more shots this turn", s.name),
            )
            .by(s.id));
        }
        if mode == FireMode::Aimed && Self::load_turns(w, rapid) > 0 && !s.loaded {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!(
                    "{}'s {} must be loaded before an aimed shot",
                    s.name, w.name
                ),
            )
            .by(s.id));
        }
        if mode == FireMode::Snap && w.snapshots_per_turn == 0 {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("a {} cannot snapshoot", w.name),
            ));
        }
        if !self.engaged_with(state, s).is_empty()
            && !s.loaded
            && mode == FireMode::Snap
            && w.aimed_load_turns > 0
        {
            return Err(refuse(
                RefusalKind::NotLoaded,
                "a figure in melee may fire only a loaded weapon",
            ));
        }
        let plan = self.fire_plan(state, shooter, target, mode, AimUse::Best, false)?;
        if !plan.sight.clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} cannot see {}", s.name, t.name),
            )
            .by(s.id));
        }
        Ok(())
    }

    /// Wound events for a figure (or its mount), with preservation points.
    fn wound(&self, sc: &mut Scratch, id: FigureId, struck: Struck, w: Wound) {
        let Some(f) = sc.state.figure(id).cloned() else {
            return;
        };
        let mount = struck == Struck::Mount;
        if mount {
            let new = combine_wounds(&self.data, f.mount_wound, w, false).unwrap_or(w);
            sc.push(Event::Wounded {
                figure: id,
                wound: new,
                mount: true,
            });
            return;
        }
        let ignores = self.ignores_light(&sc.state, &f);
        let Some(new) = combine_wounds(&self.data, f.wound, w, ignores) else {
            sc.note(format!("{} ignores a light wound", f.name));
            return;
        };
        if Some(new) == f.wound {
            sc.note(format!("{}'s wound is unchanged", f.name));
            return;
        }
        sc.push(Event::Wounded {
            figure: id,
            wound: new,
            mount: false,
        });
        let p = &self.data.preservation;
        let points = |w: Option<Wound>| match w {
            None => 0,
            Some(Wound::Light) => p.light,
            Some(Wound::Serious) => p.serious,
            Some(Wound::Killed) => p.killed + if f.leader { p.leader_extra } else { 0 },
        };
        let added = points(Some(new)).saturating_sub(points(f.wound));
        if let Some(side) = sc.state.sides.get(f.side) {
            let total = side.preservation_points + added;
            let broken = side.preservation_limit.is_some_and(|l| total > l);
            if broken && !side.broken {
                sc.note(format!(
                    "{}'s morale is broken: orders to retreat must be issued",
                    side.name
                ));
            }
            sc.push(Event::Preservation {
                side: f.side,
                points: total,
                broken,
            });
        }
        if Self::side_kind(&sc.state, &f) == SideKind::European {
            sc.note(format!(
                "{} is wounded: roll the rescue reaction for his nearest friend",
                f.name
            ));
        }
    }

    fn resolve_fire(
        &self,
        state: &GameState,
        cmd: (FigureId, FigureId, FireMode, bool, AimUse, bool),
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (shooter, target, mode, rapid, aim_use, at_mount) = cmd;
        self.check_fire(state, shooter, target, mode, rapid)?;
        let plan = self.fire_plan(state, shooter, target, mode, aim_use, at_mount)?;
        let mut sc = Scratch::new(state);
        sc.measured("range", plan.range, &plan.band);
        if plan.band.too_close_to_call {
            sc.note(format!(
                "range {:.2} in is within {:.2} in of a band edge: too close to call, measure by hand (taken as {})",
                plan.range.value_in,
                geometry::CALL_MARGIN_SIGMAS * plan.range.sigma_in,
                plan.band_name
            ));
        }
        if plan.sight.clear.too_close_to_call || plan.sight.cover.too_close_to_call {
            sc.note("line of sight or cover is too close to call: check by eye");
        }
        let priority = self.target_priority(state, shooter);
        if !priority.is_empty() && !priority.contains(&target) {
            let names: Vec<String> = priority
                .iter()
                .filter_map(|id| state.figure(*id).map(|f| f.name.clone()))
                .collect();
            sc.note(format!(
                "target priority: {} come first (unless he was ordered to shoot this target)",
                names.join(", ")
            ));
        }
        let o = fire_odds(&self.data, &plan.situation);
        sc.push(Event::Odds {
            purpose: "fire".into(),
            odds: fire_named(&o, plan.situation.mounted_target),
        });
        let white = sc.roll(
            dice,
            "to hit (white)",
            Some(shooter),
            self.data.fire.dice_white,
        )?;
        let coloured = sc.roll(
            dice,
            "save (coloured)",
            Some(target),
            self.data.fire.dice_coloured,
        )?;
        let mount_die = if plan.situation.mounted_target {
            Some(sc.roll(dice, "rider or mount", Some(target), 1)?[0].face)
        } else {
            None
        };
        let (w0, w1) = (white[0].face, white.get(1).map_or(0, |d| d.face));
        let out = fire_outcome(
            &self.data,
            &plan.situation,
            w0,
            w1,
            coloured[0].face,
            mount_die,
        );
        sc.push(Event::ShotFired {
            figure: shooter,
            target,
            mode,
        });
        sc.push(Event::FireResolved {
            shooter,
            target,
            mode,
            band: plan.band_name.clone(),
            needed: plan.situation.needed,
            save: plan.situation.save,
            on_target: out.on_target,
            saved: out.saved,
            aim_bonus: out.aim_bonus,
        });
        if let Some((struck, w)) = out.wound {
            if out.saved {
                sc.note("saved, but doubles: a light wound from splinters (note 1)");
            }
            self.wound(&mut sc, target, struck, w);
        }
        if out.on_target && out.saved {
            let t = figure(state, target)?;
            let w = self.weapon(&figure(state, shooter)?.weapon)?;
            if w.notes.contains(&2) && self.data.fire.note2_hits_melee_partner {
                let partners = self.engaged_with(state, t);
                match partners.as_slice() {
                    [] => {}
                    [only] => {
                        sc.note("saved: the shot hits the figure in melee with the target (note 2)");
                        let dmg = self.data.damage.men.wound(w0, w1);
                        self.wound(&mut sc, *only, Struck::Man, dmg);
                    }
                    many => sc.note(format!(
                        "saved: the shot hits one of {} figures in melee with {} (note 2); his player chooses, damage {:?}",
                        many.len(),
                        t.name,
                        self.data.damage.men.wound(w0, w1)
                    )),
                }
            }
            let in_cover = t.prone || plan.sight.cover.value != Cover::None;
            let ignores = self.level(state, t)?.ignores_close_miss;
            if in_cover && !ignores && sc.state.figure(target).is_some_and(Figure::active) {
                let until_turn = next_turn_of(state, t.side);
                sc.push(Event::Idle {
                    figure: target,
                    until_turn,
                    reason: "close miss: ducks behind cover".into(),
                });
            }
        }
        Ok(sc.events)
    }

    fn melee_side(
        &self,
        state: &GameState,
        f: &Figure,
        opponent: &Figure,
    ) -> Result<MeleeSide, RuleError> {
        let m = &self.data.melee;
        let weapon = self
            .data
            .melee_weapon(&f.melee_weapon)
            .ok_or(RuleError::Unknown {
                what: "melee weapon",
                name: f.melee_weapon.clone(),
            })?;
        let mut modifier =
            self.level(state, f)?.melee - self.wound_penalty(state, f) + weapon.modifier;
        if f.shield {
            modifier += m.shield;
        }
        if f.pace == Pace::Charge && !f.charged_through_rough {
            modifier += m.charging;
        }
        if f.mounted() && !opponent.mounted() {
            modifier += m.mounted_vs_foot;
        }
        if f.prone {
            modifier += m.prone;
        }
        Ok(MeleeSide {
            modifier,
            evading: f.pace == Pace::Evade,
        })
    }

    fn check_melee(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
    ) -> Result<(), RuleError> {
        self.require_phase(state, "melee")?;
        if attackers.is_empty()
            || defenders.is_empty()
            || (attackers.len() > 1 && defenders.len() > 1)
        {
            return Err(refuse(
                RefusalKind::Malformed,
                "a melee is one figure against one or more",
            ));
        }
        let (lone, many) = if attackers.len() == 1 {
            (attackers[0], defenders)
        } else {
            (defenders[0], attackers)
        };
        let l = figure(state, lone)?;
        Self::require_able(state, l)?;
        for id in many {
            let o = figure(state, *id)?;
            if !o.active() || o.side == l.side {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!("{} cannot fight {}", o.name, l.name),
                )
                .by(o.id));
            }
            let r = self.rule_range(state, l, o, self.data.measure.melee);
            if !r.at_most(self.data.melee.engagement_in).value {
                return Err(refuse(
                    RefusalKind::NotInContact,
                    format!(
                        "{} and {} are {:.1} in apart: melee needs {} in",
                        l.name, o.name, r.value_in, self.data.melee.engagement_in
                    ),
                )
                .by(l.id));
            }
        }
        Ok(())
    }

    fn resolve_melee(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.check_melee(state, attackers, defenders)?;
        let mut sc = Scratch::new(state);
        for &a in attackers {
            for &d in defenders {
                let (fa, fd) = (figure(state, a)?, figure(state, d)?);
                let r = self.rule_range(state, fa, fd, self.data.measure.melee);
                let call = r.at_most(self.data.melee.engagement_in);
                if call.too_close_to_call {
                    sc.measured(&format!("{} to {}", fa.name, fd.name), r, &call);
                    sc.note("engagement distance too close to call: check by eye");
                }
            }
        }
        sc.push(Event::Odds {
            purpose: "melee".into(),
            odds: self.melee_named(state, attackers, defenders)?,
        });
        let mut rolls = Vec::new();
        for &id in attackers.iter().chain(defenders) {
            let r = sc.roll(dice, "melee", Some(id), self.data.melee.dice)?;
            rolls.push((id, [r[0].face, r.get(1).map_or(0, |d| d.face)]));
        }
        let side_of = |id: FigureId, opp: FigureId| -> Result<MeleeSide, RuleError> {
            self.melee_side(state, figure(state, id)?, figure(state, opp)?)
        };
        let (lone, lone_is_attacker, many) = if attackers.len() == 1 {
            (attackers[0], true, defenders)
        } else {
            (defenders[0], false, attackers)
        };
        let lone_dice = rolls
            .iter()
            .find(|(id, _)| *id == lone)
            .map(|r| r.1)
            .unwrap_or([1, 1]);
        let lone_side = side_of(lone, many[0])?;
        let others: Vec<(MeleeSide, [u32; 2])> = many
            .iter()
            .map(|&id| {
                let d = rolls
                    .iter()
                    .find(|(x, _)| *x == id)
                    .map(|r| r.1)
                    .unwrap_or([1, 1]);
                side_of(id, lone).map(|s| (s, d))
            })
            .collect::<Result<_, _>>()?;
        let (lone_wound, other_wounds) = if many.len() == 1 {
            let (lw, ow) =
                melee_outcome(&self.data, &lone_side, &others[0].0, lone_dice, others[0].1);
            (lw, vec![ow])
        } else {
            outnumbered_outcome(&self.data, &lone_side, lone_dice, &others)
        };
        let total = |s: &MeleeSide, d: [u32; 2]| (d[0] + d[1]) as i32 + s.modifier;
        let lone_total = total(&lone_side, lone_dice);
        let other_totals: Vec<i32> = others.iter().map(|(s, d)| total(s, *d)).collect();
        let (attacker_totals, defender_totals) = if lone_is_attacker {
            (vec![lone_total], other_totals)
        } else {
            (other_totals, vec![lone_total])
        };
        sc.push(Event::MeleeResolved {
            attackers: attackers.to_vec(),
            defenders: defenders.to_vec(),
            attacker_totals,
            defender_totals,
        });
        if let Some(w) = lone_wound {
            self.wound(&mut sc, lone, Struck::Man, w);
        }
        for (&id, w) in many.iter().zip(other_wounds) {
            if let Some(w) = w {
                self.wound(&mut sc, id, Struck::Man, w);
            }
        }
        Ok(sc.events)
    }

    fn melee_named(
        &self,
        state: &GameState,
        attackers: &[FigureId],
        defenders: &[FigureId],
    ) -> Result<Vec<NamedOdds>, RuleError> {
        if attackers.len() == 1 && defenders.len() == 1 {
            let (a, d) = (figure(state, attackers[0])?, figure(state, defenders[0])?);
            let o = melee_odds(
                &self.data,
                &self.melee_side(state, a, d)?,
                &self.melee_side(state, d, a)?,
            );
            return Ok(named(&[
                ("p_attacker_wounded", o.p_attacker_wounded),
                ("p_defender_wounded", o.p_defender_wounded),
                ("p_no_wound", o.p_no_wound),
            ]));
        }
        let (lone, many) = if attackers.len() == 1 {
            (attackers[0], defenders)
        } else {
            (defenders[0], attackers)
        };
        let l = figure(state, lone)?;
        let sides: Vec<MeleeSide> = many
            .iter()
            .map(|&id| self.melee_side(state, figure(state, id)?, l))
            .collect::<Result<_, _>>()?;
        let lone_side = self.melee_side(state, l, figure(state, many[0])?)?;
        Ok(match outnumbered_odds(&self.data, &lone_side, &sides) {
            Some((pl, po)) => {
                let mut v = named(&[(&format!("p_{}_wounded", l.name), pl)]);
                for (&id, p) in many.iter().zip(po) {
                    let n = figure(state, id)?.name.clone();
                    v.extend(named(&[(&format!("p_{n}_wounded"), p)]));
                }
                v
            }
            None => Vec::new(),
        })
    }

    fn check_move(
        &self,
        state: &GameState,
        id: FigureId,
        path: &[Point2<f64>],
        pace: Pace,
        mount_level: Option<u8>,
    ) -> Result<MovePlan, RuleError> {
        self.require_phase(state, "move")?;
        let f = figure(state, id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        self.check_move_allowed(state, f, path, pace)?;
        let kind = Self::side_kind(state, f);
        let mv = &self.data.movement;
        let mut points = vec![f.placement.center_in_table];
        points.extend_from_slice(path);
        let scale = state.scale.table_in_per_rule_in();
        let (length_rule, rough_rule, obstacle_at) = Self::path_in_rule(state, f, &points);
        let loss = match kind {
            SideKind::European => mv.rough_loss_european,
            SideKind::Native => mv.rough_loss_native,
        };
        // An inch of rough ground uses 1/(1 - loss) inches of the allowance.
        let cost_rule = length_rule - rough_rule + rough_rule / (1.0 - loss).max(f64::EPSILON);
        let sigma_rule = f.placement.sigma_in * std::f64::consts::SQRT_2 / scale;
        let cost = Measured::new(cost_rule, sigma_rule);
        match f.obstacle {
            ObstacleStage::Reached { turn } if turn >= state.turn => {
                return Err(refuse(
                    RefusalKind::Movement,
                    format!("{} stopped at an obstacle this turn", f.name),
                )
                .by(f.id));
            }
            ObstacleStage::Reached { .. } => {
                if length_rule > OBSTACLE_CROSS_MAX_IN {
                    return Err(refuse(
                        RefusalKind::Movement,
                        "crossing an obstacle: place the figure on the far side, still in contact",
                    ));
                }
                return Ok(MovePlan {
                    cost,
                    limit_in: OBSTACLE_CROSS_MAX_IN,
                    rough: rough_rule > 0.0,
                    end: *points.last().unwrap_or(&f.placement.center_in_table),
                    stage: Some(ObstacleStage::Crossed { turn: state.turn }),
                    level: None,
                });
            }
            ObstacleStage::Crossed { turn } if turn >= state.turn => {
                return Err(refuse(
                    RefusalKind::Movement,
                    format!("{} crossed an obstacle this turn", f.name),
                )
                .by(f.id));
            }
            _ => {}
        }
        let (min_in, max_in, level) =
            self.move_limits(f, kind, pace, mount_level, &points, scale)?;
        let end = obstacle_at.unwrap_or(*points.last().unwrap_or(&f.placement.center_in_table));
        if !cost.at_most(max_in).value {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} may move {max_in} in at this pace; the path costs {:.1} in",
                    f.name, cost.value_in
                ),
            )
            .by(f.id));
        }
        let contacts_enemy = state.figures.iter().any(|o| {
            o.side != f.side && o.active() && {
                let p = Placement {
                    center_in_table: end,
                    ..f.placement
                };
                state
                    .scale
                    .rule_from_table(geometry::range_in(
                        &p,
                        &o.placement,
                        self.data.measure.melee,
                    ))
                    .value_in
                    <= self.data.melee.engagement_in
            }
        });
        if obstacle_at.is_none()
            && cost_rule < min_in
            && !contacts_enemy
            && !Measured::new(cost_rule, sigma_rule).near(min_in)
        {
            return Err(refuse(
                RefusalKind::TooFar,
                format!("at this speed a mount must move at least {min_in} in"),
            ));
        }
        Ok(MovePlan {
            cost,
            limit_in: max_in,
            rough: rough_rule > 0.0,
            end,
            stage: obstacle_at.map(|_| ObstacleStage::Reached { turn: state.turn }),
            level,
        })
    }

    /// The checks of a move that do not depend on its length: a path on
    /// the table, no move out of melee but an evade, a fanatic's forced
    /// charge, who may charge.
    fn check_move_allowed(
        &self,
        state: &GameState,
        f: &Figure,
        path: &[Point2<f64>],
        pace: Pace,
    ) -> Result<(), RuleError> {
        if path.is_empty() {
            return Err(refuse(
                RefusalKind::Malformed,
                "a move needs at least one point",
            ));
        }
        if let Some(p) = path.iter().find(|p| !state.on_table(**p)) {
            return Err(refuse(
                RefusalKind::OffTable,
                format!("({:.1}, {:.1}) is off the table", p.x, p.y),
            ));
        }
        let engaged = !self.engaged_with(state, f).is_empty();
        if engaged && pace != Pace::Evade {
            return Err(refuse(
                RefusalKind::Engaged,
                format!(
                    "{} is engaged in melee: evading is the only movement allowed",
                    f.name
                ),
            )
            .by(f.id));
        }
        if !engaged && let Some(target) = self.forced_charge_target(state, f) {
            let t = figure(state, target)?;
            let before = (t.placement.center_in_table - f.placement.center_in_table).norm();
            let end = path.last().copied().unwrap_or(f.placement.center_in_table);
            let after = (t.placement.center_in_table - end).norm();
            if pace != Pace::Charge || after >= before {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!(
                        "{} is a fanatic: he must charge {}, the closest enemy he sees",
                        f.name, t.name
                    ),
                )
                .by(f.id));
            }
        }
        let kind = Self::side_kind(state, f);
        let mv = &self.data.movement;
        if pace == Pace::Charge {
            match kind {
                SideKind::European if f.charge_turns_used >= mv.european_charge_turns => {
                    return Err(refuse(
                        RefusalKind::AlreadyActed,
                        format!(
                            "Europeans charge at most {} turns a game; {} has used them",
                            mv.european_charge_turns, f.name
                        ),
                    ));
                }
                SideKind::Native => {
                    let sees_enemy = state.figures.iter().any(|o| {
                        o.side != f.side
                            && o.alive()
                            && !o.concealed
                            && self.sight(state, &f.placement, &o.placement).clear.value
                    });
                    if !sees_enemy {
                        return Err(refuse(
                            RefusalKind::NoOrder,
                            "natives charge only when closing with a seen enemy",
                        ));
                    }
                }
                SideKind::European => {}
            }
        }
        Ok(())
    }

    /// The path's length and its length through rough ground, rule inches,
    /// and where it first meets an obstacle (table inches).
    fn path_in_rule(
        state: &GameState,
        f: &Figure,
        points: &[Point2<f64>],
    ) -> (f64, f64, Option<Point2<f64>>) {
        let scale = state.scale.table_in_per_rule_in();
        let mut length_rule = 0.0;
        let mut rough_rule = 0.0;
        let mut obstacle_at: Option<Point2<f64>> = None;
        for w in points.windows(2) {
            let (a, b) = (w[0], w[1]);
            length_rule += (b - a).norm() / scale;
            for area in &state.terrain {
                if area.is(TerrainKind::Rough) {
                    rough_rule += length_inside_in(a, b, &area.polygon_in) / scale;
                }
                if area.is(TerrainKind::Obstacle)
                    && obstacle_at.is_none()
                    && f.obstacle == ObstacleStage::Clear
                    && !geometry::point_in_polygon(&area.polygon_in, a)
                    && geometry::segment_crosses(a, b, &area.polygon_in)
                {
                    obstacle_at = Some(first_contact(a, b, &area.polygon_in));
                }
            }
        }
        (length_rule, rough_rule, obstacle_at)
    }

    /// The least and most a move may cost at this pace (a rider: at his
    /// mount's new speed, rule inches), and the mount's new speed level.
    fn move_limits(
        &self,
        f: &Figure,
        kind: SideKind,
        pace: Pace,
        mount_level: Option<u8>,
        points: &[Point2<f64>],
        scale: f64,
    ) -> Result<(f64, f64, Option<u8>), RuleError> {
        let mv = &self.data.movement;
        let mut level = None;
        let (min_in, max_in) = if f.mounted() {
            let old = f.mount_level.unwrap_or(0);
            let new = mount_level.unwrap_or(old);
            let m = &self.data.mount;
            if u32::from(new) > u32::from(old) + m.up_levels
                || u32::from(new) + m.down_levels < u32::from(old)
            {
                return Err(refuse(
                    RefusalKind::Movement,
                    format!(
                        "a mount goes up {} speed and down {} a turn",
                        m.up_levels, m.down_levels
                    ),
                ));
            }
            let speed = m.speed.get(usize::from(new)).ok_or(RuleError::Unknown {
                what: "mount speed",
                name: new.to_string(),
            })?;
            if speed.name == "gallop" {
                check_gallop_turns(points, m.gallop_turn_after_in * scale, m.gallop_turn_deg)?;
            }
            level = Some(new);
            (speed.min_in, speed.max_in)
        } else {
            let rates = match kind {
                SideKind::European => &mv.european,
                SideKind::Native => &mv.native,
            };
            let max = match pace {
                Pace::Stationary => 0.0,
                Pace::Crawl => rates.crawl,
                Pace::Walk => rates.walk,
                Pace::Doubletime => rates.doubletime,
                Pace::Charge => rates.charge,
                Pace::Evade => rates.evade,
            };
            (0.0, max)
        };
        Ok((min_in, max_in, level))
    }

    fn check_order(
        &self,
        state: &GameState,
        giver: FigureId,
        to: &[FigureId],
        via: &OrderVia,
        order: &str,
    ) -> Result<Vec<(FigureId, Call<bool>)>, RuleError> {
        self.require_phase(state, "non-combat")?;
        let g = figure(state, giver)?;
        Self::require_own_turn(state, g)?;
        Self::require_able(state, g)?;
        self.check_vocabulary(state, g, via, order)?;
        if state.orders_this_turn.get(g.side).copied().unwrap_or(0)
            >= self.data.orders.orders_per_turn
        {
            return Err(refuse(RefusalKind::AlreadyActed, "only one order a turn"));
        }
        let mut reach = Vec::new();
        for &id in to {
            let r = figure(state, id)?;
            if r.side != g.side {
                return Err(refuse(
                    RefusalKind::NotAnEnemy,
                    format!("{} is not on {}'s side", r.name, g.name),
                )
                .by(r.id));
            }
            let range = self.rule_range(state, g, r, self.data.measure.orders);
            let call = match via {
                OrderVia::Shout => range.at_most(self.data.orders.shout_in),
                OrderVia::HandSignal => {
                    let mut c = range.at_most(self.data.orders.hand_signal_in);
                    let sight = self.sight(state, &r.placement, &g.placement);
                    let busy = r.shots_this_turn > 0
                        || r.aim_ready
                        || !self.engaged_with(state, r).is_empty()
                        || (r.pace == Pace::Charge
                            && self.level(state, r).is_ok_and(|l| l.name == "fanatic"));
                    c.value = c.value && sight.clear.value && !busy;
                    c.too_close_to_call |= sight.clear.too_close_to_call;
                    c
                }
                OrderVia::Musician { .. } => Call::sure(true),
            };
            reach.push((id, call));
        }
        if let OrderVia::Musician { musician } = via {
            let m = figure(state, *musician)?;
            if m.rank != Rank::Musician || m.side != g.side {
                return Err(refuse(
                    RefusalKind::NotAnEnemy,
                    format!("{} is not a musician of {}'s side", m.name, g.name),
                )
                .by(m.id));
            }
            if !self
                .rule_range(state, g, m, self.data.measure.orders)
                .at_most(self.data.orders.shout_in)
                .value
            {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    "the musician must hear the order",
                ));
            }
        }
        Ok(reach)
    }

    /// Who may send an order this way, and what it may say: shouts are free
    /// text from officers, NCOs and chiefs; hand signals come from the
    /// signal list (scouts only the simple signals); musicians' calls from
    /// the call list (native musicians only the calls marked native).
    fn check_vocabulary(
        &self,
        state: &GameState,
        g: &Figure,
        via: &OrderVia,
        order: &str,
    ) -> Result<(), RuleError> {
        let o = &self.data.orders;
        let giver = o.givers.iter().any(|r| r == g.rank.name());
        let name = signal_name(order);
        let scout = g.rank == Rank::Scout;
        match via {
            OrderVia::Shout if giver => {
                if order.trim().is_empty() {
                    return Err(refuse(RefusalKind::Malformed, "say what the order is"));
                }
            }
            OrderVia::HandSignal if giver || scout => {
                let allowed: Vec<&String> = if giver {
                    o.hand_signals.iter().chain(&o.scout_signals).collect()
                } else {
                    o.scout_signals.iter().collect()
                };
                if !allowed.iter().any(|a| **a == name) {
                    let list: Vec<&str> = allowed.iter().map(|a| a.as_str()).collect();
                    return Err(refuse(
                        RefusalKind::NoOrder,
                        format!(
                            "`{order}` is not a hand signal{}; the signals are: {}",
                            if scout && !giver {
                                " a scout can give"
                            } else {
                                ""
                            },
                            list.join(", ")
                        ),
                    ));
                }
            }
            OrderVia::Musician { musician } if giver => {
                let native = figure(state, *musician)
                    .map(|m| Self::side_kind(state, m) == SideKind::Native)
                    .unwrap_or(false);
                let calls: Vec<&str> = o
                    .call
                    .iter()
                    .filter(|c| c.native || !native)
                    .map(|c| c.name.as_str())
                    .collect();
                if !calls.contains(&name.as_str()) {
                    return Err(refuse(
                        RefusalKind::NoOrder,
                        format!(
                            "`{order}` is not a call {} musician can sound; the calls are: {}",
                            if native { "a native" } else { "a" },
                            calls.join(", ")
                        ),
                    ));
                }
            }
            OrderVia::HandSignal => {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!(
                        "only {} give hand signals (scouts the simple ones)",
                        o.givers.join(", ")
                    ),
                ));
            }
            _ => {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!("only {} give orders", o.givers.join(", ")),
                ));
            }
        }
        Ok(())
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut sc = Scratch::new(state);
        match command {
            Command::Load { .. } => self.resolve_load(state, &mut sc, command)?,
            Command::Aim { .. } => self.resolve_aim(state, &mut sc, command)?,
            Command::Fire {
                shooter,
                target,
                mode,
                rapid,
                aim_use,
                at_mount,
            } => {
                return self.resolve_fire(
                    state,
                    (*shooter, *target, *mode, *rapid, *aim_use, *at_mount),
                    dice,
                );
            }
            Command::FireGun { gun } => return self.resolve_gun(state, *gun, dice),
            Command::Melee {
                attackers,
                defenders,
            } => return self.resolve_melee(state, attackers, defenders, dice),
            Command::Move { .. } => self.resolve_move(state, &mut sc, command)?,
            Command::Prone { .. } => self.resolve_prone(state, &mut sc, command)?,
            Command::Order { .. } => self.resolve_order(state, &mut sc, command)?,
            Command::Spot { scout, center_in } => {
                return self.resolve_spot(state, *scout, *center_in, dice);
            }
            Command::FirstAttack { .. } => {
                self.resolve_first_attack(state, &mut sc, command, dice)?
            }
            Command::Rescue { wounded } => return self.resolve_rescue(state, *wounded, dice),
            Command::Shed { .. } => self.resolve_shed(state, &mut sc, command, dice)?,
            Command::Advance { .. } => self.resolve_advance(state, &mut sc, command, dice)?,
            Command::Recover { .. } => self.resolve_recover(state, &mut sc, command, dice)?,
            Command::RollExperience { .. } => {
                self.resolve_roll_experience(state, &mut sc, command, dice)?
            }
            other @ (Command::VolleyFire(_)
            | Command::SoldiersInTime(_)
            | Command::LittleColonial(_)
            | Command::Observe { .. }
            | Command::Untyped { .. }) => {
                return Err(RuleError::Unsupported {
                    rule_set: super::NAME.to_owned(),
                    action: crate::rules::action::action_name(other),
                });
            }
            Command::EndPhase => self.resolve_end_phase(state, &mut sc),
        }
        Ok(sc.events)
    }

    /// The `Load` command (see [`Command::Load`]).
    fn resolve_load(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
    ) -> Result<(), RuleError> {
        let Command::Load { figure: id } = command else {
            return Ok(());
        };
        let f = figure(state, *id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        let w = self.weapon(&f.weapon)?;
        let need = w.aimed_load_turns.max(1);
        if f.loaded {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} is already loaded", f.name),
            )
            .by(f.id));
        }
        let progress = f.load_progress + 1;
        sc.push(Event::Loaded {
            figure: *id,
            progress,
            loaded: progress >= need,
        });
        Ok(())
    }

    /// The `Aim` command (see [`Command::Aim`]).
    fn resolve_aim(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
    ) -> Result<(), RuleError> {
        let Command::Aim { figure: id, target } = command else {
            return Ok(());
        };
        self.require_phase(state, "fire")?;
        let f = figure(state, *id)?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        let t = figure(state, *target)?;
        if f.shots_this_turn > 0 {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has fired this turn", f.name),
            )
            .by(f.id));
        }
        if !self.sight(state, &f.placement, &t.placement).clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!("{} cannot see {}", f.name, t.name),
            )
            .by(f.id));
        }
        sc.push(Event::AimTaken {
            figure: *id,
            target: *target,
        });
        Ok(())
    }

    /// The `Move` command (see [`Command::Move`]).
    fn resolve_move(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
    ) -> Result<(), RuleError> {
        let Command::Move {
            figure: id,
            path_in,
            facing_deg,
            pace,
            mount_level,
        } = command
        else {
            return Ok(());
        };
        let plan = self.check_move(state, *id, path_in, *pace, *mount_level)?;
        let f = figure(state, *id)?;
        sc.measured("move cost", plan.cost, &plan.cost.at_most(plan.limit_in));
        if let Some(level) = plan.level
            && Some(level) != f.mount_level
        {
            sc.push(Event::MountSpeed { figure: *id, level });
        }
        if *pace == Pace::Charge && Self::side_kind(state, f) == SideKind::European {
            sc.push(Event::ChargeTurnUsed { figure: *id });
        }
        if *pace == Pace::Charge
            && !f.status.contains_key(CHARGING_KEY)
            && let Some(target) = self.forced_charge_target(state, f)
        {
            let name = figure(state, target)?.name.clone();
            sc.note(format!(
                "{} charges {name}: from now on he reacts to nothing else",
                f.name
            ));
            sc.push(Event::Status {
                of: StatusOf::Figure(*id),
                key: CHARGING_KEY.into(),
                value: Some(name),
            });
        }
        let distance_in = (plan.end - f.placement.center_in_table).norm();
        sc.push(Event::Moved {
            figure: *id,
            to_in: plan.end,
            facing_deg: geometry::normalize_deg(*facing_deg),
            pace: *pace,
            distance_in,
            through_rough: plan.rough,
        });
        match plan.stage {
            Some(stage) => {
                if matches!(stage, ObstacleStage::Reached { .. }) {
                    sc.note(format!(
                        "{} stops at the obstacle; he crosses next turn",
                        f.name
                    ));
                }
                sc.push(Event::ObstacleStage { figure: *id, stage });
            }
            None if f.obstacle != ObstacleStage::Clear => {
                sc.push(Event::ObstacleStage {
                    figure: *id,
                    stage: ObstacleStage::Clear,
                });
            }
            None => {}
        }
        Ok(())
    }

    /// The `Prone` command (see [`Command::Prone`]).
    fn resolve_prone(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
    ) -> Result<(), RuleError> {
        let Command::Prone { figure: id, prone } = command else {
            return Ok(());
        };
        let f = figure(state, *id)?;
        Self::require_own_turn(state, f)?;
        if self.charging_fanatic(state, f) {
            return Err(refuse(
                RefusalKind::NoOrder,
                format!(
                    "{} is a charging fanatic: he reacts to nothing else",
                    f.name
                ),
            )
            .by(f.id));
        }
        sc.push(Event::Prone {
            figure: *id,
            prone: *prone,
        });
        Ok(())
    }

    /// The `Order` command (see [`Command::Order`]).
    fn resolve_order(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
    ) -> Result<(), RuleError> {
        let Command::Order {
            giver,
            to,
            order,
            via,
        } = command
        else {
            return Ok(());
        };
        let reach = self.check_order(state, *giver, to, via, order)?;
        let mut heard = Vec::new();
        for (id, mut call) in reach {
            let r = figure(state, id)?;
            let name = r.name.clone();
            if !self.data.orders.fanatic_charging_takes_orders && self.charging_fanatic(state, r) {
                sc.note(format!(
                    "{name} is a charging fanatic: he reacts to no order"
                ));
                call = Call::sure(false);
            }
            if call.too_close_to_call {
                sc.note(format!("whether {name} gets the order is too close to call: players decide (taken as {})", call.value));
            }
            if call.value {
                heard.push(id);
            } else {
                sc.note(format!("{name} does not get the order"));
            }
        }
        let (via_name, from_turn) = match via {
            OrderVia::Shout => ("shout", state.turn),
            OrderVia::HandSignal => ("hand signal", state.turn),
            OrderVia::Musician { .. } => (
                "musician",
                state.turn + self.data.orders.musician_delay_turns,
            ),
        };
        let order = match via {
            OrderVia::Shout => order.trim().to_owned(),
            _ => signal_name(order),
        };
        sc.push(Event::OrderGiven {
            giver: *giver,
            to: heard,
            order,
            via: via_name.into(),
            from_turn,
        });
        Ok(())
    }

    /// The `FirstAttack` command (see [`Command::FirstAttack`]).
    fn resolve_first_attack(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let Command::FirstAttack { leader } = command else {
            return Ok(());
        };
        let l = figure(state, *leader)?;
        let nl = &self.data.reactions.novice_leader;
        if !l.leader || self.level(state, l)?.name != "novice" {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not a novice leader", l.name),
            )
            .by(l.id));
        }
        if state
            .sides
            .get(l.side)
            .is_some_and(|s| s.first_attack_rolled)
        {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                "the first attack reaction is rolled once",
            ));
        }
        sc.push(Event::Odds {
            purpose: "novice leader".into(),
            odds: named(&[(
                "p_becomes_trained",
                calc::p_two_dice_at_least(nl.needed as i32, 0),
            )]),
        });
        let r = sc.roll(dice, "novice leader's first attack", Some(*leader), nl.dice)?;
        sc.push(Event::FirstAttackRolled { side: l.side });
        if total(&r) >= nl.needed {
            sc.push(Event::Experience {
                figure: *leader,
                number: nl.becomes,
            });
        } else {
            sc.note(format!("{} stays a novice", l.name));
        }
        Ok(())
    }

    /// The `Shed` command (see [`Command::Shed`]).
    fn resolve_shed(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let Command::Shed { side } = command else {
            return Ok(());
        };
        let s = state.sides.get(*side).ok_or(RuleError::Unknown {
            what: "side",
            name: side.to_string(),
        })?;
        if !s.broken {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} has not exceeded its preservation limit", s.name),
            ));
        }
        let r = sc.roll(
            dice,
            "shed preservation points",
            None,
            self.data.preservation.shed_dice,
        )?;
        let points = s.preservation_points.saturating_sub(total(&r));
        let broken = s.preservation_limit.is_some_and(|l| points > l);
        sc.push(Event::Preservation {
            side: *side,
            points,
            broken,
        });
        Ok(())
    }

    /// The `Advance` command (see [`Command::Advance`]).
    fn resolve_advance(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let Command::Advance { figure: id } = command else {
            return Ok(());
        };
        let f = figure(state, *id)?;
        if !f.alive() {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} did not survive", f.name)).by(f.id),
            );
        }
        let n = f.experience;
        sc.push(Event::Odds {
            purpose: "advance".into(),
            odds: named(&[("p_advance", p_advance(n, self.data.experience.max_number))]),
        });
        let r = sc.roll(dice, "advancement", Some(*id), self.data.experience.dice)?;
        if total(&r) > u32::from(n) && n < self.data.experience.max_number {
            sc.push(Event::Experience {
                figure: *id,
                number: n + 1,
            });
        }
        Ok(())
    }

    /// The `Recover` command (see [`Command::Recover`]).
    fn resolve_recover(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let Command::Recover {
            figure: id,
            cared_for,
        } = command
        else {
            return Ok(());
        };
        let f = figure(state, *id)?;
        let rec = &self.data.recovery;
        let bonus = if *cared_for || self.level(state, f).is_ok_and(|l| l.light_wounds_ignored) {
            rec.bonus
        } else {
            0
        };
        let wound = match f.wound {
            Some(w @ (Wound::Light | Wound::Serious)) => w,
            _ => {
                return Err(refuse(
                    RefusalKind::CannotDo,
                    format!("{} has no wound to recover from", f.name),
                )
                .by(f.id));
            }
        };
        let outcome = |roll: u32| -> Option<Wound> {
            let t = roll + bonus;
            match wound {
                Wound::Light if t >= rec.light_heals => None,
                Wound::Light => Some(Wound::Light),
                _ if t <= rec.serious_dies => Some(Wound::Killed),
                _ if t >= rec.serious_heals => None,
                _ => Some(Wound::Light),
            }
        };
        sc.push(Event::Odds {
            purpose: "recovery".into(),
            odds: named(&[
                ("p_healed", probability(&[D6], |f| outcome(f[0]).is_none())),
                (
                    "p_dies",
                    probability(&[D6], |f| outcome(f[0]) == Some(Wound::Killed)),
                ),
            ]),
        });
        let r = sc.roll(dice, "recovery", Some(*id), rec.dice)?;
        match outcome(total(&r)) {
            Some(Wound::Killed) => sc.push(Event::Wounded {
                figure: *id,
                wound: Wound::Killed,
                mount: false,
            }),
            w => sc.push(Event::Healed {
                figure: *id,
                wound: w,
            }),
        }
        Ok(())
    }

    /// The `RollExperience` command (see [`Command::RollExperience`]).
    fn resolve_roll_experience(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let Command::RollExperience { figure } = command else {
            return Ok(());
        };
        let f = state
            .figure_named(figure)
            .ok_or_else(|| RuleError::Unknown {
                what: "figure",
                name: figure.clone(),
            })?;
        let green = state
            .sides
            .get(f.side)
            .is_some_and(|s| s.status.get(GREEN_KEY).is_some_and(|v| v == "true"));
        let penalty = if green {
            u32::from(self.data.experience.green_penalty)
        } else {
            0
        };
        let number = |face: u32| face.saturating_sub(penalty).max(1);
        let mut odds = Vec::new();
        for level in self
            .data
            .experience
            .level
            .iter()
            .filter(|l| l.side.is_none_or(|k| k == Self::side_kind(state, f)))
        {
            odds.extend(named(&[(
                &format!("p_{}", level.name),
                probability(&[D6], |d| {
                    u8::try_from(number(d[0])).is_ok_and(|n| level.numbers.contains(&n))
                }),
            )]));
        }
        sc.push(Event::Odds {
            purpose: "starting experience".into(),
            odds,
        });
        if green {
            sc.note(format!(
                "{}'s side is green: {} off the roll",
                f.name, penalty
            ));
        }
        let r = sc.roll(dice, "starting experience", Some(f.id), 1)?;
        sc.push(Event::Experience {
            figure: f.id,
            number: u8::try_from(number(total(&r))).unwrap_or(u8::MAX),
        });
        Ok(())
    }

    /// The end of the phase: the turn clock moves on.
    fn resolve_end_phase(&self, state: &GameState, sc: &mut Scratch) {
        sc.push(crate::rules::action::next_phase_event(
            state,
            self.data.turn.phases.len(),
        ));
    }

    fn resolve_gun(
        &self,
        state: &GameState,
        gun: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.require_phase(state, "fire")?;
        let g = figure(state, gun)?;
        Self::require_own_turn(state, g)?;
        Self::require_able(state, g)?;
        let w = self.weapon(&g.weapon)?;
        if !w.gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not a gun", w.name),
            ));
        }
        if w.aimed_load_turns > 0 && !g.loaded {
            return Err(refuse(RefusalKind::NotLoaded, "the gun must be loaded"));
        }
        if g.ammo == Some(0) || g.shots_this_turn > 0 {
            return Err(refuse(
                RefusalKind::CannotDo,
                "the gun cannot fire again now",
            ));
        }
        let art = &self.data.artillery;
        let needed = match Self::side_kind(state, g) {
            SideKind::European => art.hit_european,
            SideKind::Native => art.hit_native,
        };
        let max_range = w.range_in[2];
        let mut sc = Scratch::new(state);
        let mut in_cone_ids = Vec::new();
        for f in state.figures.iter().filter(|f| f.id != gun && f.alive()) {
            let cone = in_cone(
                &g.placement,
                art.cone_deg,
                GUN_FACING_SIGMA_DEG,
                &f.placement,
            );
            let range = self.rule_range(state, g, f, RangeMethod::CentreToCentre);
            if cone.too_close_to_call {
                sc.note(format!(
                    "{} is at the edge of the cone: too close to call (taken as {})",
                    f.name,
                    if cone.value { "in" } else { "out" }
                ));
            }
            if cone.value
                && range.value_in <= max_range
                && self.sight(state, &g.placement, &f.placement).clear.value
            {
                in_cone_ids.push(f.id);
            }
        }
        let saves: Vec<(FigureId, u32, bool)> = in_cone_ids
            .iter()
            .filter_map(|&id| state.figure(id))
            .map(|f| {
                let sight = self.sight(state, &g.placement, &f.placement);
                // The weapon's save stands where the movement save would:
                // movement has no effect, cover and posture do.
                let save = save_number(
                    &self.data.saves,
                    &SaveSituation {
                        movement: w.artillery_save.unwrap_or(0),
                        prone: f.prone,
                        soft_cover: sight.cover.value == Cover::Soft,
                        hard_cover: sight.cover.value == Cover::Hard,
                        leader: f.leader,
                    },
                );
                (f.id, save, f.leader)
            })
            .collect();
        let p_on = calc::p_two_dice_at_least(needed as i32, 0);
        let mut odds = named(&[("p_on_target", p_on)]);
        for (id, save, _) in &saves {
            let name = figure(state, *id)?.name.clone();
            odds.extend(named(&[(
                &format!("p_{name}_hit"),
                p_on * f64::from(6 - save.min(&6)) / 6.0,
            )]));
        }
        sc.push(Event::Odds {
            purpose: "gun".into(),
            odds,
        });
        let white = sc.roll(dice, "gun to hit", Some(gun), art.dice)?;
        sc.push(Event::ShotFired {
            figure: gun,
            target: gun,
            mode: FireMode::Aimed,
        });
        if total(&white) < needed {
            sc.note("the gun's shot is off target");
            return Ok(sc.events);
        }
        let (w0, w1) = (white[0].face, white.get(1).map_or(0, |d| d.face));
        for (id, save, leader) in saves {
            let c = sc.roll(dice, "save against the gun", Some(id), 1)?[0].face;
            let saved = c <= save || (leader && c <= self.data.saves.leader_always_saves_on);
            if !saved {
                let t = figure(state, id)?;
                let struck = if t.mounted() {
                    let m = sc.roll(dice, "rider or mount", Some(id), 1)?[0].face;
                    if m <= self.data.mounted_hit.rider_max {
                        Struck::Man
                    } else {
                        Struck::Mount
                    }
                } else {
                    Struck::Man
                };
                let table = if struck == Struck::Man {
                    &self.data.damage.men
                } else {
                    &self.data.damage.mounts
                };
                self.wound(&mut sc, id, struck, table.wound(w0, w1));
            }
        }
        Ok(sc.events)
    }

    fn resolve_spot(
        &self,
        state: &GameState,
        scout: FigureId,
        center: Point2<f64>,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.require_phase(state, "observe")?;
        let s = figure(state, scout)?;
        Self::require_own_turn(state, s)?;
        Self::require_able(state, s)?;
        if s.rank != Rank::Scout {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} is not a scout", s.name)).by(s.id),
            );
        }
        if !matches!(s.pace, Pace::Stationary | Pace::Walk) {
            return Err(refuse(
                RefusalKind::CannotDo,
                "only a stationary or walking scout observes",
            ));
        }
        let point = Placement {
            center_in_table: center,
            facing_deg: 0.0,
            shape: geometry::BaseShape::Round { diameter_in: 0.0 },
            sigma_in: 0.0,
        };
        if !self.sight(state, &s.placement, &point).clear.value {
            return Err(refuse(
                RefusalKind::OutOfSight,
                "the scout cannot see that spot",
            ));
        }
        let sp = &self.data.spotting;
        let mut sc = Scratch::new(state);
        let mut found = Vec::new();
        let mut all_in_cover = true;
        for f in state
            .figures
            .iter()
            .filter(|f| f.side != s.side && f.concealed && f.alive())
        {
            let r = state.scale.rule_from_table(geometry::range_in(
                &point,
                &f.placement,
                self.data.measure.spotting,
            ));
            let call = r.at_most(sp.scout_radius_in);
            if call.too_close_to_call {
                sc.note(format!(
                    "{} is at the edge of the scout's circle: too close to call",
                    f.name
                ));
            }
            if call.value {
                found.push(f.id);
                all_in_cover &= state.terrain.iter().any(|a| {
                    (a.is(TerrainKind::SoftCover) || a.is(TerrainKind::HardCover))
                        && geometry::point_in_polygon(&a.polygon_in, f.placement.center_in_table)
                });
            }
        }
        let mut modifier = 0;
        if !found.is_empty() && all_in_cover {
            modifier += sp.target_in_cover;
        }
        if s.mounted() {
            modifier += sp.scout_mounted;
        }
        let needed = self.level(state, s)?.spotting_needed;
        sc.push(Event::Odds {
            purpose: "spot".into(),
            odds: named(&[(
                "p_spotted",
                calc::p_two_dice_at_least(needed as i32, modifier),
            )]),
        });
        let r = sc.roll(dice, "spotting", Some(scout), sp.dice)?;
        if total(&r) as i32 + modifier >= needed as i32 {
            for id in found {
                sc.push(Event::Spotted { figure: id });
            }
        } else {
            sc.note("nothing is spotted");
        }
        Ok(sc.events)
    }

    fn resolve_rescue(
        &self,
        state: &GameState,
        wounded: FigureId,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let w = figure(state, wounded)?;
        if Self::side_kind(state, w) != SideKind::European || w.wound.is_none() {
            return Err(refuse(
                RefusalKind::CannotDo,
                "the rescue reaction follows the wounding of a European",
            ));
        }
        let mut sc = Scratch::new(state);
        let busy = |f: &Figure| f.aim_ready || !self.engaged_with(state, f).is_empty();
        let nearest = state
            .figures
            .iter()
            .filter(|f| f.side == w.side && f.id != wounded && f.active())
            .min_by(|a, b| {
                let ra = self
                    .rule_range(state, w, a, RangeMethod::CentreToCentre)
                    .value_in;
                let rb = self
                    .rule_range(state, w, b, RangeMethod::CentreToCentre)
                    .value_in;
                ra.total_cmp(&rb)
            });
        let Some(n) = nearest else {
            sc.note("no friend is near enough to react");
            return Ok(sc.events);
        };
        let row_of = |t: u32| {
            self.data
                .reactions
                .rescue
                .iter()
                .find(|r| r.rolls.contains(&t))
                .map(|r| r.result.clone())
        };
        let mut rescue_by_nearest = false;
        if busy(n) {
            sc.note(format!(
                "{} is charged, in melee or aiming: he ignores the reaction",
                n.name
            ));
        } else {
            let odds: Vec<NamedOdds> = self
                .data
                .reactions
                .rescue
                .iter()
                .map(|row| NamedOdds {
                    name: format!("p_{}", row.result),
                    p: probability(&[D6, D6], |f| row.rolls.contains(&(f[0] + f[1]))),
                })
                .collect();
            sc.push(Event::Odds {
                purpose: "rescue".into(),
                odds,
            });
            let r = sc.roll(dice, "rescue reaction", Some(n.id), 2)?;
            match row_of(total(&r)).as_deref() {
                Some("freeze") => sc.push(Event::Idle {
                    figure: n.id,
                    until_turn: next_turn_of(state, n.side),
                    reason: "frozen by a comrade's wound".into(),
                }),
                Some("rescue") => {
                    rescue_by_nearest = true;
                    sc.note(format!("{} must try to rescue {}", n.name, w.name));
                }
                _ => sc.note(format!("{} does what his player wants", n.name)),
            }
        }
        if !rescue_by_nearest
            && let Some(l) = state
                .figures
                .iter()
                .find(|f| f.side == w.side && f.leader && f.active() && f.id != n.id)
        {
            let p_rescue = self
                .data
                .reactions
                .rescue
                .iter()
                .filter(|row| row.result == "rescue")
                .map(|row| probability(&[D6, D6], |f| row.rolls.contains(&(f[0] + f[1]))))
                .sum::<f64>();
            sc.push(Event::Odds {
                purpose: "rescue (leader)".into(),
                odds: named(&[("p_leader_orders_rescue", p_rescue)]),
            });
            let r = sc.roll(dice, "rescue reaction (leader)", Some(l.id), 2)?;
            if row_of(total(&r)).as_deref() == Some("rescue") {
                sc.note(format!(
                    "{} must order {} to rescue {}",
                    l.name, n.name, w.name
                ));
            }
        }
        Ok(sc.events)
    }
}

/// What a legal move does.
#[derive(Debug, Clone)]
struct MovePlan {
    cost: Measured,
    /// The most the move may cost, rule inches.
    limit_in: f64,
    rough: bool,
    end: Point2<f64>,
    stage: Option<ObstacleStage>,
    level: Option<u8>,
}

/// The round in which side `side` next takes its turn.
fn next_turn_of(state: &GameState, side: usize) -> u32 {
    if side > state.active_side {
        state.turn
    } else {
        state.turn + 1
    }
}

/// P(a d6 rolls above `number`), the chance to advance.
fn p_advance(number: u8, max: u8) -> f64 {
    if number >= max {
        0.0
    } else {
        probability(&[D6], |f| f[0] > u32::from(number))
    }
}

/// The point where segment a-b first meets the polygon.
fn first_contact(a: Point2<f64>, b: Point2<f64>, poly: &[Point2<f64>]) -> Point2<f64> {
    let d = b - a;
    let mut best = 1.0_f64;
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let e = q - p;
        let denom = d.perp(&e);
        if denom.abs() <= f64::EPSILON {
            continue;
        }
        let t = (p - a).perp(&e) / denom;
        let u = (p - a).perp(&d) / denom;
        if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u) {
            best = best.min(t);
        }
    }
    a + d * best
}

/// A galloping mount goes straight for `straight_in` table inches, then may
/// turn up to `max_turn_deg` in all.
fn check_gallop_turns(
    points: &[Point2<f64>],
    straight_in: f64,
    max_turn_deg: f64,
) -> Result<(), RuleError> {
    let mut travelled = 0.0;
    let mut turned = 0.0;
    for w in points.windows(3) {
        let (a, b, c) = (w[0], w[1], w[2]);
        travelled += (b - a).norm();
        let h1 = (b - a).y.atan2((b - a).x).to_degrees();
        let h2 = (c - b).y.atan2((c - b).x).to_degrees();
        let mut turn = (h2 - h1).abs() % 360.0;
        if turn > 180.0 {
            turn = 360.0 - turn;
        }
        if turn <= STRAIGHT_TOLERANCE_DEG {
            continue;
        }
        if travelled + 1e-9 < straight_in {
            return Err(refuse(
                RefusalKind::Movement,
                "a galloping mount may turn only after moving 5 in",
            ));
        }
        turned += turn;
    }
    if turned > max_turn_deg + STRAIGHT_TOLERANCE_DEG {
        return Err(refuse(
            RefusalKind::Movement,
            format!("a galloping mount turns at most {max_turn_deg} degrees"),
        ));
    }
    Ok(())
}

/// Fire odds as named values (mount fields only for mounted targets).
pub fn fire_named(o: &calc::FireOdds, mounted: bool) -> Vec<NamedOdds> {
    let mut v = named(&[
        ("p_on_target", o.p_on_target),
        ("p_saved", o.p_saved),
        ("p_hit", o.p_hit),
        ("p_light", o.p_light),
        ("p_serious", o.p_serious),
        ("p_killed", o.p_killed),
    ]);
    if mounted {
        v.extend(named(&[
            ("p_mount_light", o.p_mount_light),
            ("p_mount_serious", o.p_mount_serious),
            ("p_mount_killed", o.p_mount_killed),
        ]));
    }
    v
}

impl RuleSet for StandToRules {
    fn name(&self) -> &str {
        &self.data.name
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions()
    }

    fn phases(&self) -> Vec<String> {
        self.data.turn.phases.clone()
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapon(name).is_some()
    }

    fn knows_melee_weapon(&self, name: &str) -> bool {
        self.data.melee_weapon(name).is_some()
    }

    fn overlays(
        &self,
        state: &GameState,
        figure: FigureId,
    ) -> Vec<crate::rules::overlay::OverlayShape> {
        self.overlay_shapes(state, figure)
    }

    fn first_side_kind(&self) -> Option<SideKind> {
        Some(self.data.turn.first_side)
    }

    fn preservation_limit(&self, accepted_percent: u32, men: usize) -> Option<u32> {
        let rows = &self.data.preservation.limit;
        let row = rows
            .iter()
            .filter(|r| r.accepted_percent <= accepted_percent)
            .max_by_key(|r| r.accepted_percent)
            .or_else(|| rows.iter().min_by_key(|r| r.accepted_percent))?;
        // Whole points: a fraction of a point is not yet over the limit.
        Some((row.multiplier * men as f64).floor() as u32)
    }

    fn base_edge(&self, state: &GameState, f: &Figure) -> Option<crate::vision::EdgeColour> {
        let level = self.level(state, f).ok()?;
        crate::vision::EdgeColour::ALL
            .into_iter()
            .find(|e| e.name() == level.edge)
    }

    fn mount_level(&self, name: &str) -> Option<u8> {
        let i = self.data.mount.speed.iter().position(|s| s.name == name)?;
        u8::try_from(i).ok()
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        match command {
            Command::Fire {
                shooter,
                target,
                mode,
                rapid,
                ..
            } => self.check_fire(state, *shooter, *target, *mode, *rapid),
            Command::Melee {
                attackers,
                defenders,
            } => self.check_melee(state, attackers, defenders),
            Command::Move {
                figure,
                path_in,
                pace,
                mount_level,
                ..
            } => self
                .check_move(state, *figure, path_in, *pace, *mount_level)
                .map(|_| ()),
            Command::Order {
                giver,
                to,
                via,
                order,
            } => self.check_order(state, *giver, to, via, order).map(|_| ()),
            // The rest check as they resolve: resolve with dice that always
            // show 1 and throw the events away.
            other => self.resolve_inner(state, other, &mut OddsProbe).map(|_| ()),
        }
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        match command {
            Command::Fire {
                shooter,
                target,
                mode,
                aim_use,
                at_mount,
                ..
            } => {
                let plan = self.fire_plan(state, *shooter, *target, *mode, *aim_use, *at_mount)?;
                Ok(fire_named(
                    &fire_odds(&self.data, &plan.situation),
                    plan.situation.mounted_target,
                ))
            }
            Command::Melee {
                attackers,
                defenders,
            } => self.melee_named(state, attackers, defenders),
            // Other commands emit their odds before their first roll: run
            // them with dice that always show 1 and keep only the odds.
            other => Ok(first_odds(&self.resolve_inner(
                state,
                other,
                &mut OddsProbe,
            )?)),
        }
    }

    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.resolve_inner(state, command, dice)
    }
}

/// Dice that always show 1, used to reach a command's Odds event without
/// keeping its result.
#[derive(Debug, Default)]
struct OddsProbe;

impl Dice for OddsProbe {
    fn roll(&mut self, sides: u32) -> Result<DieRoll, crate::core::dice::DiceError> {
        if sides == 0 {
            return Err(crate::core::dice::DiceError::NoFaces);
        }
        Ok(DieRoll { sides, face: 1 })
    }
}

fn first_odds(events: &[Event]) -> Vec<NamedOdds> {
    events
        .iter()
        .find_map(|e| match e {
            Event::Odds { odds, .. } => Some(odds.clone()),
            _ => None,
        })
        .unwrap_or_default()
}
