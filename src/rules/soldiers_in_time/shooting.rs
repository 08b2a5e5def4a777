//! Shooting (6): who may fire and how (aimed or snap, by his order), the
//! reload d10 (6.2), the to-hit modifiers (6.1, 6.3, 5.1), a shot and a
//! volley.
//!
//! # Conventions
//! Range centre to centre, table inches, with the positions' uncertainty
//! (a range too close to call is allowed and the reading says so). A
//! modifier of +N is added to the d10 and makes a hit harder.
//!
//! The to-hit tables of 6.3 are lost from our copy: range, cover, moving
//! target and target size modifiers are house values of the data file's
//! `[fire]` table.

use super::action::{FireParams, ReloadParams, VolleyParams};
use super::engine::{
    SHOOTING, SoldiersInTimeRules, centre_gap, edge_gap, in_play, refuse, routed, sit, st, within,
};
use super::event::Event as SitEvent;
use super::status::Order;
use super::{NAME, WeaponData, hits, shot_odds};
use crate::core::dice::{Dice, total};
use crate::core::odds::named;
use crate::core::{Reading, RefusalKind};
use crate::geometry::{Cover, line_hits_base, line_of_sight};
use crate::rules::common::{Work, figure, require_active_side};
use crate::rules::{Event, Figure, FigureId, GameState, RuleError};

/// How far in front of a target the line of fire looks for cover, table
/// inches (a wall near the firer is one he shoots over).
pub(super) const COVER_REACH_IN: f64 = 1.0;

/// A shot, decided but for the dice.
pub(super) struct FirePlan {
    shooter: FigureId,
    target: FigureId,
    snap: bool,
    /// Loaded, or a weapon of several shots that fired already this turn.
    ready: bool,
    /// 6.3: friends the shot goes past (in the line of fire, nearest the
    /// firer first), then those in the melee with the target: a hit may
    /// strike the first of them.
    friends_at_risk: Vec<FigureId>,
    modifier: i32,
    weapon: WeaponData,
    reading: Reading,
    why: String,
}

impl SoldiersInTimeRules {
    pub(super) fn weapon(&self, f: &Figure) -> Result<&WeaponData, RuleError> {
        self.data.weapons.get(&f.weapon).ok_or(RuleError::Unknown {
            what: "weapon",
            name: f.weapon.clone(),
        })
    }

    fn nearest_enemy<'a>(state: &'a GameState, s: &Figure) -> Option<&'a Figure> {
        state
            .figures
            .iter()
            .filter(|t| t.side != s.side && in_play(t))
            .min_by(|a, b| {
                centre_gap(a, s)
                    .value()
                    .total_cmp(&centre_gap(b, s).value())
            })
    }

    /// May `s` fire this turn, and is it a snap shot (true) or aimed? By his
    /// order (5.2): a fire order gives an aimed shot; a passed Forward March,
    /// Follow Him or Formed Charge snap fire, the leader too; a failed
    /// Forward March snap fire "except the leader"; a failed Formed Charge
    /// none ("No snap fire is allowed since the men used their time
    /// encouraging others to charge"); a lone man under the out of command
    /// range chart an aimed shot if he has not moved.
    pub(super) fn fire_kind(
        &self,
        state: &GameState,
        s: &Figure,
        want_snap: bool,
    ) -> Result<bool, RuleError> {
        let no = |why: String| Err(refuse(RefusalKind::NoOrder, why).by(s.id));
        let moved = st(s).moved_turn == Some(state.turn) && st(s).moved_in > 0.0;
        match st(s).order {
            Some(o) if o.passed => Ok(match o.order {
                Order::VolleyFire | Order::IndependentFire => want_snap,
                Order::Individual => want_snap || moved,
                Order::ForwardMarch | Order::FollowHim | Order::FormedCharge => true,
            }),
            Some(o) if o.order == Order::FormedCharge => no(format!(
                "{}'s formed charge failed: no snap fire, he spent his time urging the others on",
                s.name
            )),
            Some(o) if s.leader => no(format!(
                "{} failed his {} activation: the unit may snap fire, but not its leader",
                s.name,
                o.order.name()
            )),
            Some(_) => Ok(true),
            None if s.leader => no(format!("{} has no fire order", s.name)),
            None if !self.leader_in_range(state, s) => no(format!(
                "{} is outside every leader's command range: he flips on the out of command \
                 range chart first (`individual`)",
                s.name
            )),
            None => Ok(true),
        }
    }

    /// The to-hit modifiers of a shot by `s` at `t`, each named. `far`: the
    /// target is beyond the weapon's short range (None: no range modifier,
    /// a thrown grenade).
    pub(super) fn fire_modifiers(
        &self,
        state: &GameState,
        s: &Figure,
        t: &Figure,
        snap: bool,
        far: Option<bool>,
    ) -> Vec<(&'static str, i32)> {
        let fire = &self.data.fire;
        let mut m = Vec::new();
        // 6.1: "Foot soldiers may fire in the same turn that they charge at a
        // penalty of +4": the charge's penalty is the type of fire.
        if st(s).charging {
            m.push(("firing while charging", fire.charging_firer_add));
        } else if snap {
            m.push(("snap fire", fire.snap_add));
        }
        if st(t).charging {
            m.push(("charging target", fire.charging_target_add));
        }
        if far == Some(true) {
            m.push(("long range", fire.long_range_add));
        }
        let cover = line_of_sight(&s.placement, &t.placement, &state.terrain, COVER_REACH_IN)
            .cover
            .value;
        // 11: "Hidden troops receive a +2 because of the benefit of cover",
        // unless a hit within 2 in exposed them.
        if Self::hidden(state, t) {
            m.push(("hidden target", fire.hidden_target_add));
        } else if cover == Cover::Hard {
            m.push(("hard cover", fire.hard_cover_add));
        } else if cover == Cover::Soft {
            m.push(("soft cover", fire.soft_cover_add));
        }
        if st(t).moved_turn == Some(state.turn) && st(t).moved_in > 0.0 && !st(t).charging {
            m.push(("moving target", fire.moving_target_add));
        }
        if t.mounted() {
            m.push(("mounted target", fire.mounted_target_add));
        }
        m.retain(|(_, v)| *v != 0);
        m
    }

    /// The sum of the modifiers.
    pub(super) fn fire_modifier(
        &self,
        state: &GameState,
        s: &Figure,
        t: &Figure,
        snap: bool,
        far: Option<bool>,
    ) -> i32 {
        self.fire_modifiers(state, s, t, snap, far)
            .iter()
            .map(|(_, v)| v)
            .sum()
    }

    /// The shooter may fire at all (in the fight, not routed, a hand
    /// weapon).
    fn check_shooter(&self, state: &GameState, s: &Figure) -> Result<&WeaponData, RuleError> {
        require_active_side(NAME, state, s)?;
        if !in_play(s) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is out of the fight", s.name),
            )
            .by(s.id));
        }
        if routed(s) {
            return Err(refuse(
                RefusalKind::Morale,
                format!(
                    "{} is routed: a routing figure will not melee or shoot",
                    s.name
                ),
            )
            .by(s.id));
        }
        let w = self.weapon(s)?;
        if w.artillery.is_some() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} serves a gun: use `artillery`", s.name),
            )
            .by(s.id));
        }
        if w.reload_max == 0 || st(s).flag {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} has no missile weapon", s.name),
            )
            .by(s.id));
        }
        Ok(w)
    }

    pub(super) fn plan_fire(
        &self,
        state: &GameState,
        p: &FireParams,
    ) -> Result<FirePlan, RuleError> {
        let s = figure(state, &p.shooter)?;
        let w = self.check_shooter(state, s)?.clone();
        let t = match &p.target {
            Some(name) => figure(state, name)?,
            None => Self::nearest_enemy(state, s)
                .ok_or_else(|| refuse(RefusalKind::OutOfTheFight, "no enemy left in the fight"))?,
        };
        if !in_play(t) {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is out of the fight", t.name),
            )
            .by(t.id));
        }
        if s.side == t.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "no firing at one's own side",
            ));
        }
        let snap = self.fire_kind(state, s, p.snap)?;
        if !snap {
            self.check_lone_volley(state, s)?;
        }
        let fired = Self::shots_this_turn(state, s);
        let allowed = self.shots_allowed(state, s, &w);
        if fired >= allowed {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has fired {fired} shot(s) this turn: his {} fires {allowed} a turn",
                    s.name, s.weapon
                ),
            )
            .by(s.id));
        }
        // A weapon of several shots reloads once a turn.
        let ready = s.loaded || (fired > 0 && w.shots.is_some());
        if !ready && st(s).reload_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::NotLoaded,
                format!("{} rolled his reload this turn and is not loaded", s.name),
            )
            .by(s.id));
        }
        let range = centre_gap(s, t);
        if !within(range, w.range_in) {
            return Err(refuse(
                RefusalKind::OutOfRange,
                format!(
                    "{} is {:.1} in away, beyond {} in",
                    t.name,
                    range.value(),
                    w.range_in
                ),
            )
            .by(t.id));
        }
        let sight = line_of_sight(&s.placement, &t.placement, &state.terrain, COVER_REACH_IN);
        if !sight.clear.value && !sight.clear.too_close_to_call {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{} cannot see {}: {}",
                    s.name,
                    t.name,
                    sight.areas.join(", ")
                ),
            )
            .by(t.id));
        }
        let in_melee = self.friends_in_melee_with(state, s, t);
        let mut friends_at_risk = Self::friends_in_the_line(state, s, t, &in_melee);
        friends_at_risk.extend(in_melee);
        let short = w.range_in * self.data.fire.long_range_from;
        let mods = self.fire_modifiers(state, s, t, snap, Some(range.value() > short));
        let why = mods
            .iter()
            .map(|(n, v)| format!("{n} {v:+}"))
            .collect::<Vec<_>>()
            .join(", ");
        Ok(FirePlan {
            shooter: s.id,
            target: t.id,
            snap,
            ready,
            friends_at_risk,
            modifier: mods.iter().map(|(_, v)| v).sum(),
            reading: range.reading(format!("{} to {}", s.name, t.name), &[short, w.range_in]),
            weapon: w,
            why,
        })
    }

    pub(super) fn resolve_fire(
        &self,
        state: &GameState,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.phase(state, "fire", &[SHOOTING])?;
        let mut work = Work::new(state);
        self.fire_into(&mut work, p, dice)?;
        Ok(work.into_events())
    }

    /// The reload d10 of a shot (6.2), when he is not loaded: false when it
    /// fails and he cannot fire this turn.
    fn reload_roll(
        &self,
        work: &mut Work,
        s: &Figure,
        w: &WeaponData,
        dice: &mut dyn Dice,
    ) -> Result<bool, RuleError> {
        let r = work.roll1(dice, self.data.fire.die, "reload", Some(s.id))?;
        let loaded = r <= w.reload_max;
        work.push(sit(SitEvent::Reloaded {
            figure: s.id,
            turn: work.now.turn,
            loaded,
        }));
        if !loaded {
            work.note(format!("{} is still reloading", s.name));
        }
        Ok(loaded)
    }

    fn fire_into(
        &self,
        work: &mut Work,
        p: &FireParams,
        dice: &mut dyn Dice,
    ) -> Result<(), RuleError> {
        let plan = self.plan_fire(&work.now, p)?;
        let state = work.now.clone();
        let (s, t) = (
            work.fig(plan.shooter)?.clone(),
            work.fig(plan.target)?.clone(),
        );
        work.push(Event::Measured(plan.reading.clone()));
        self.push_shot_odds(work, &state, &plan, &s, &t);
        if !plan.ready && !self.reload_roll(work, &s, &plan.weapon, dice)? {
            return Ok(());
        }
        let h = work.roll1(dice, self.data.fire.die, "to hit", Some(s.id))?;
        work.push(sit(SitEvent::Fired {
            figure: s.id,
            target: t.id,
            snap: plan.snap,
        }));
        self.gives_himself_away(work, &s);
        if !hits(h, plan.modifier, s.experience) {
            work.note(format!("{} misses", s.name));
            return Ok(());
        }
        let t = self.figure_struck(work, &s, &t, &plan.friends_at_risk, dice)?;
        self.expose_around(work, &t);
        let w = &plan.weapon;
        let dmg = work.roll(
            dice,
            w.damage_dice as usize,
            w.damage_sides,
            "damage",
            Some(s.id),
        )?;
        let damage = total(&dmg) + w.damage_add;
        self.apply_damage(work, t.id, damage, dice).map(drop)
    }

    /// The odds of a shot (6.3: into a melee, the target's share of a hit
    /// and the friend's).
    fn push_shot_odds(
        &self,
        work: &mut Work,
        state: &GameState,
        plan: &FirePlan,
        s: &Figure,
        t: &Figure,
    ) {
        let shot = super::Shot {
            already_loaded: plan.ready,
            ..self.shot_for(state, t, s.experience, plan.modifier)
        };
        let o = shot_odds(
            &self.data,
            &plan.weapon,
            &shot,
            &Self::deck_pile(state, t.side),
        );
        let share = if plan.friends_at_risk.is_empty() {
            1.0
        } else {
            f64::from(self.data.fire.into_melee_target_max.min(self.data.fire.die))
                / f64::from(self.data.fire.die.max(1))
        };
        let mut odds = vec![
            ("p_reloaded", o.p_reloaded),
            ("p_hit", o.p_hit),
            ("p_morale_check_only", o.p_morale_check_only * share),
            ("p_killed", o.p_killed * share),
        ];
        if !plan.friends_at_risk.is_empty() {
            odds.push(("p_friend_struck", o.p_hit * (1.0 - share)));
        }
        work.push(Event::Odds {
            purpose: format!(
                "{} fires {} at {} ({})",
                s.name,
                if plan.snap { "a snap shot" } else { "aimed" },
                t.name,
                if plan.why.is_empty() {
                    "no modifiers"
                } else {
                    &plan.why
                }
            ),
            odds: named(&odds),
        });
    }

    /// Shots `s` fired this turn.
    fn shots_this_turn(state: &GameState, s: &Figure) -> u32 {
        if st(s).shots_turn == Some(state.turn) {
            st(s).shots_fired
        } else {
            0
        }
    }

    /// 6.1: the shots a turn of his weapon: one, or its `shots`; "If there
    /// is only one figure alone because of casualties, then only 3 shots
    /// may be taken each turn" (no friend within 1 in of the gunner).
    fn shots_allowed(&self, state: &GameState, s: &Figure, w: &WeaponData) -> u32 {
        let Some(shots) = w.shots else {
            return 1;
        };
        let crewed = state.figures.iter().any(|f| {
            f.id != s.id
                && f.side == s.side
                && in_play(f)
                && !routed(f)
                && within(edge_gap(f, s), self.data.fire.adjacent_in)
        });
        if crewed {
            shots
        } else {
            w.shots_alone.unwrap_or(shots).min(shots)
        }
    }

    /// The friends of `s` in base contact with `t` (in a melee with him),
    /// nearest `s` first.
    fn friends_in_melee_with(&self, state: &GameState, s: &Figure, t: &Figure) -> Vec<FigureId> {
        let mut friends: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|f| {
                f.side == s.side
                    && f.id != s.id
                    && in_play(f)
                    && within(edge_gap(f, t), self.data.fire.adjacent_in)
            })
            .collect();
        friends.sort_by(|a, b| {
            centre_gap(a, s)
                .value()
                .total_cmp(&centre_gap(b, s).value())
        });
        friends.into_iter().map(|f| f.id).collect()
    }

    /// 6.3, Fire Past Friends (house): the friends whose bases the line of
    /// fire crosses, nearest the firer first (those in the melee with the
    /// target left out).
    fn friends_in_the_line(
        state: &GameState,
        s: &Figure,
        t: &Figure,
        in_melee: &[FigureId],
    ) -> Vec<FigureId> {
        let (a, b) = (s.placement.center_in_table, t.placement.center_in_table);
        let mut friends: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|f| {
                f.side == s.side
                    && f.id != s.id
                    && in_play(f)
                    && !in_melee.contains(&f.id)
                    && line_hits_base(a, b, &f.placement)
            })
            .collect();
        friends.sort_by(|x, y| {
            centre_gap(x, s)
                .value()
                .total_cmp(&centre_gap(y, s).value())
        });
        friends.into_iter().map(|f| f.id).collect()
    }

    /// 6.3, Fire Past Friends or At Enemies Engaged In Melee (house): a hit
    /// past friends in the line of fire, or on an enemy in a melee with
    /// friends, strikes him on a d10 at or under 5, else the first friend
    /// in the line (or the one in the melee nearest the firer). Returns the
    /// figure struck.
    fn figure_struck(
        &self,
        work: &mut Work,
        s: &Figure,
        t: &Figure,
        friends: &[FigureId],
        dice: &mut dyn Dice,
    ) -> Result<Figure, RuleError> {
        let Some(friend) = friends.first() else {
            return Ok(t.clone());
        };
        let face = work.roll1(dice, self.data.fire.die, "past friends", Some(s.id))?;
        if face <= self.data.fire.into_melee_target_max {
            return Ok(t.clone());
        }
        let friend = work.fig(*friend)?.clone();
        work.note(format!(
            "{}'s shot strikes {}, his own side (house rule)",
            s.name, friend.name
        ));
        Ok(friend)
    }

    /// 11 (house): a hidden figure that fires gives himself away: no
    /// hidden +2 to the end of the next turn.
    fn gives_himself_away(&self, work: &mut Work, s: &Figure) {
        let turn = work.now.turn;
        if s.concealed && st(s).exposed_until.is_none_or(|u| u < turn + 1) {
            work.push(sit(SitEvent::Exposed {
                figures: vec![s.id],
                until_turn: turn + 1,
            }));
            work.note(format!("{} fires and gives himself away", s.name));
        }
    }

    /// 11: "If there is a hit then all troops in a 2 inch radius are
    /// automatically exposed and no will not receive the +2 benefit of
    /// cover in the next turn": the hidden figures within 2 in of the
    /// figure hit (base edge to base edge, him too) lose it up to the end
    /// of the next turn.
    pub(super) fn expose_around(&self, work: &mut Work, hit: &Figure) {
        let radius = self.data.fire.exposed_radius_in;
        let until_turn = work.now.turn + 1;
        let figures: Vec<FigureId> = work
            .now
            .figures
            .iter()
            .filter(|f| {
                f.concealed && in_play(f) && (f.id == hit.id || within(edge_gap(f, hit), radius))
            })
            .map(|f| f.id)
            .collect();
        if figures.is_empty() {
            return;
        }
        let names: Vec<&str> = figures
            .iter()
            .filter_map(|id| work.now.figure(*id).map(|f| f.name.as_str()))
            .collect();
        let text = format!(
            "the hit on {} exposes {} (within {radius} in): no hidden +2 until turn {until_turn} ends",
            hit.name,
            names.join(", ")
        );
        work.push(sit(SitEvent::Exposed {
            figures,
            until_turn,
        }));
        work.note(text);
    }

    pub(super) fn plan_volley(
        &self,
        state: &GameState,
        p: &VolleyParams,
    ) -> Result<Vec<FigureId>, RuleError> {
        self.phase(state, "volley", &[SHOOTING])?;
        if p.men.is_empty() {
            return Err(refuse(
                RefusalKind::Malformed,
                "a volley needs the men who shoot: name at least one in `men`",
            ));
        }
        let mut men = Vec::new();
        for name in &p.men {
            let m = figure(state, name)?;
            require_active_side(NAME, state, m)?;
            men.push(m);
        }
        let able: Vec<&Figure> = men
            .iter()
            .copied()
            .filter(|m| in_play(m) && !routed(m))
            .collect();
        if let Some(first) = able.first() {
            let leader = Self::volley_leader(state, first, &able)?;
            self.check_volley_formation(state, leader, &able)?;
        }
        Ok(men.iter().map(|m| m.id).collect())
    }

    /// The leader whose passed Volley Fire order every man of the volley is
    /// under (5.2: "if he succeeds, all followers can shoot an aimed shot").
    fn volley_leader<'a>(
        state: &'a GameState,
        first: &Figure,
        able: &[&Figure],
    ) -> Result<&'a Figure, RuleError> {
        let by = |m: &Figure| {
            st(m)
                .order
                .filter(|o| o.passed && o.order == Order::VolleyFire)
                .and_then(|o| o.by)
        };
        let not_under = |m: &Figure| {
            refuse(
                RefusalKind::NoOrder,
                format!(
                    "{} is not under a passed volley fire order with the others: he fires with \
                     `fire`",
                    m.name
                ),
            )
            .by(m.id)
        };
        let leader_id = by(first).ok_or_else(|| not_under(first))?;
        if let Some(m) = able.iter().find(|m| by(m) != Some(leader_id)) {
            return Err(not_under(m));
        }
        state
            .figure(leader_id)
            .filter(|l| in_play(l) && !routed(l))
            .ok_or_else(|| {
                refuse(
                    RefusalKind::NoOrder,
                    "the leader who ordered the volley is out of the fight",
                )
            })
    }

    /// 5.2: "Volley Fire is like Follow Me, except it requires the unit to
    /// be in formation, with the leader where he can see his men and the
    /// enemy. The unit cannot be in melee combat." House formation: the men
    /// and their leader make one body, each within the formation gap (base
    /// edge to base edge) of another of them.
    fn check_volley_formation(
        &self,
        state: &GameState,
        leader: &Figure,
        able: &[&Figure],
    ) -> Result<(), RuleError> {
        let (body, joined) = self.formation_body(leader, able);
        if let Some(j) = joined.iter().position(|j| !j) {
            return Err(self.out_of_formation(body[j], leader));
        }
        let adjacent = self.data.fire.adjacent_in;
        for m in &body {
            if let Some(e) = state
                .figures
                .iter()
                .find(|e| e.side != m.side && in_play(e) && within(edge_gap(e, m), adjacent))
            {
                return Err(refuse(
                    RefusalKind::Engaged,
                    format!(
                        "{} is in melee with {}: a unit in melee combat cannot volley",
                        m.name, e.name
                    ),
                )
                .by(m.id));
            }
        }
        let sees = |t: &Figure| {
            let sight = line_of_sight(
                &leader.placement,
                &t.placement,
                &state.terrain,
                COVER_REACH_IN,
            );
            sight.clear.value || sight.clear.too_close_to_call
        };
        if let Some(m) = body.iter().find(|m| m.id != leader.id && !sees(m)) {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{} cannot see {}: a volley needs the leader to see his men",
                    leader.name, m.name
                ),
            )
            .by(m.id));
        }
        if !state
            .figures
            .iter()
            .any(|e| e.side != leader.side && in_play(e) && sees(e))
        {
            return Err(refuse(
                RefusalKind::OutOfSight,
                format!(
                    "{} sees no enemy: a volley needs the leader to see the enemy",
                    leader.name
                ),
            )
            .by(leader.id));
        }
        Ok(())
    }

    /// The men and their leader as one body (house: each within the
    /// formation gap, base edge to base edge, of another of them): the
    /// body, and which of them are joined to it.
    fn formation_body<'a>(
        &self,
        leader: &'a Figure,
        able: &[&'a Figure],
    ) -> (Vec<&'a Figure>, Vec<bool>) {
        let mut body: Vec<&Figure> = able.to_vec();
        if !body.iter().any(|m| m.id == leader.id) {
            body.push(leader);
        }
        let gap = self.data.command.formation_gap_in;
        let start = body.iter().position(|m| m.id == leader.id).unwrap_or(0);
        let mut joined = vec![false; body.len()];
        let mut next = vec![start];
        joined[start] = true;
        while let Some(i) = next.pop() {
            for j in 0..body.len() {
                if !joined[j] && within(edge_gap(body[i], body[j]), gap) {
                    joined[j] = true;
                    next.push(j);
                }
            }
        }
        (body, joined)
    }

    fn out_of_formation(&self, m: &Figure, leader: &Figure) -> RuleError {
        let gap = self.data.command.formation_gap_in;
        refuse(
            RefusalKind::NoOrder,
            format!(
                "{} is out of formation (over {gap} in from the rest of the volley and {}): a \
                 volley needs the unit in formation",
                m.name, leader.name
            ),
        )
        .by(m.id)
    }

    /// A man under a passed Volley Fire order who fires an aimed shot on
    /// his own (`fire`) is held to the volley's formation (5.2: "it
    /// requires the unit to be in formation"): he is joined to his leader
    /// through the men under the same order.
    fn check_lone_volley(&self, state: &GameState, s: &Figure) -> Result<(), RuleError> {
        let under = |m: &Figure| {
            st(m)
                .order
                .filter(|o| o.passed && o.order == Order::VolleyFire)
                .and_then(|o| o.by)
        };
        let Some(by) = under(s) else {
            return Ok(());
        };
        let Some(leader) = state.figure(by).filter(|l| in_play(l) && !routed(l)) else {
            return Ok(());
        };
        let men: Vec<&Figure> = state
            .figures
            .iter()
            .filter(|m| in_play(m) && !routed(m) && under(m) == Some(by))
            .collect();
        let (body, joined) = self.formation_body(leader, &men);
        match body.iter().zip(&joined).find(|(m, _)| m.id == s.id) {
            Some((_, false)) => Err(self.out_of_formation(s, leader)),
            _ => Ok(()),
        }
    }

    /// Each man still able fires at the nearest enemy in turn; later shots
    /// see the results of earlier ones.
    pub(super) fn resolve_volley(
        &self,
        state: &GameState,
        p: &VolleyParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.plan_volley(state, p)?;
        let mut work = Work::new(state);
        for name in &p.men {
            let shot = FireParams {
                shooter: name.clone(),
                target: None,
                snap: false,
            };
            let mut attempt = work.clone();
            match self.fire_into(&mut attempt, &shot, dice) {
                Ok(()) => work = attempt,
                Err(RuleError::Refused(why)) => {
                    work.note(format!("{name} does not fire: {why}"));
                }
                Err(other) => return Err(other),
            }
        }
        Ok(work.into_events())
    }

    pub(super) fn plan_reload<'a>(
        &self,
        state: &'a GameState,
        p: &ReloadParams,
    ) -> Result<(&'a Figure, WeaponData), RuleError> {
        self.phase(state, "reload", &[SHOOTING])?;
        let s = figure(state, &p.figure)?;
        let w = self.check_shooter(state, s)?.clone();
        self.fire_kind(state, s, true)?;
        if s.loaded {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} is loaded already", s.name),
            )
            .by(s.id));
        }
        if st(s).reload_turn == Some(state.turn) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!("{} has rolled his reload this turn", s.name),
            )
            .by(s.id));
        }
        Ok((s, w))
    }

    /// 6.2: "If they have reloaded then they may fire during the shooting
    /// phase or they may stay 'loaded' for a future shooting phase."
    pub(super) fn resolve_reload(
        &self,
        state: &GameState,
        p: &ReloadParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let (s, w) = self.plan_reload(state, p)?;
        let mut work = Work::new(state);
        work.push(Event::Odds {
            purpose: format!("{} reloads", s.name),
            odds: named(&[(
                "p_reloaded",
                f64::from(w.reload_max.min(self.data.fire.die)) / f64::from(self.data.fire.die),
            )]),
        });
        if self.reload_roll(&mut work, s, &w, dice)? {
            work.note(format!("{} is loaded: he may fire now or later", s.name));
        }
        Ok(work.into_events())
    }
}
