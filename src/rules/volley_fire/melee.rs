//! Volley Fire! hand-to-hand combat: contact and support, figure-to-figure
//! pairs with the melee modifiers, the loser's six-d6 fall-back (shaken,
//! captured on collision, the table-edge roll).
//!
//! # Conventions
//! Table inches; contact is the melee contact gap plus a base between
//! centres; support is 6 in from the first contacted figures.

use nalgebra::{Point2, Vector2};

use super::action::MeleeParams;
use super::engine::{
    CONTACT_EXTRA_IN, VolleyFireRules, alive, centroid, ids, kill, pos, quantized, refuse, troops,
    unit, ust,
};
use super::event::Event as VfEvent;
use super::status::Troops;
use super::{MeleeFighter, pair_winner};
use crate::core::RefusalKind;
use crate::core::dice::{Dice, total};
use crate::geometry::line_hits_base;
use crate::rules::{Event, FigureId, GameState, Pace, Rank, RuleError, Unit};

/// Melee rounds after which a fight that keeps tying is left undecided.
const MAX_MELEE_ROUNDS: usize = 200;
/// A d6 at or under this face sends a fall-back along the table edge one
/// way, above it the other (house reading of "roll a D6 for direction").
const EDGE_LEFT_MAX_FACE: u32 = 3;
/// The square: "Cannot initiate any melee's and cannot support other
/// melee's."
pub(super) const SQUARE: &str = "square";

/// Who fights in a melee, before the dice.
#[derive(Debug, Clone)]
pub struct MeleePlan {
    pub attacker: usize,
    pub defender: usize,
    /// Attacking figures in contact, officers last.
    pub attackers: Vec<FigureId>,
    /// Defenders in contact and in support, officers last.
    pub defenders: Vec<FigureId>,
    /// Other units of the defender's side whose men fight in support.
    pub supporters: Vec<usize>,
}

/// The unit a figure belongs to.
fn unit_of(state: &GameState, id: FigureId) -> Option<(usize, &Unit)> {
    state
        .units
        .iter()
        .enumerate()
        .find(|(_, u)| u.figures.contains(&id))
}

impl VolleyFireRules {
    /// The melee row of a figure: officers by their mount, else the unit's
    /// named row, else its troops' row (by formation for the Sudanese and
    /// the British cavalry; a one-rank formation is the "Single Rank").
    fn melee_row(&self, state: &GameState, u: &Unit, id: FigureId, defending: bool) -> String {
        let m = &self.data.melee.modifier;
        let officer = state
            .figure(id)
            .is_some_and(|f| f.rank == Rank::Officer || f.rank == Rank::Chief);
        if officer {
            let mounted = state.figure(id).is_some_and(crate::rules::Figure::mounted);
            return if mounted {
                "mounted-officer"
            } else {
                "foot-officer"
            }
            .to_owned();
        }
        let st = ust(u);
        if let Some(row) = &st.melee {
            return row.clone();
        }
        let Some(t) = st.troops else {
            return String::new();
        };
        if let Some(row) = t.default_melee_row() {
            return row.to_owned();
        }
        if !matches!(t, Troops::Sudanese | Troops::BritishCavalry) {
            return t.name().to_owned();
        }
        let usable = |k: &str| m.get(k).is_some_and(|x| !x.defence_only || defending);
        let by_formation = format!("{}/{}", t.name(), u.formation);
        if usable(&by_formation) {
            return by_formation;
        }
        let one_rank = self
            .data
            .formation
            .layout
            .get(&u.formation)
            .is_some_and(|l| l.ranks == Some(1) && !l.hollow);
        let single = format!("{}/single-rank", t.name());
        if one_rank && usable(&single) {
            return single;
        }
        format!("{}/other", t.name())
    }

    /// A figure's melee modifier: its row, shaken, defending works, hit
    /// from the rear.
    fn fighter(
        &self,
        state: &GameState,
        u: &Unit,
        id: FigureId,
        defending: bool,
        from_rear: bool,
    ) -> MeleeFighter {
        let m = &self.data.melee.modifier;
        let mut f = m
            .get(&self.melee_row(state, u, id, defending))
            .map(|x| MeleeFighter {
                add: x.add,
                win_ties: x.win_ties,
            })
            .unwrap_or_default();
        if ust(u).shaken
            && let Some(s) = m.get("shaken")
        {
            f.add += s.add;
        }
        // "Defending Buildings, Trenches, Walls, etc.": the player's
        // `works`, or a building the unit holds on the table.
        if defending
            && (ust(u).works || self.building_of(state, u).is_some())
            && let Some(s) = m.get("defending-works")
        {
            f.add += s.add;
            f.win_ties |= s.win_ties;
        }
        // "Hit From Rear (Attacker started out of view) Die Roll - 2".
        if defending
            && from_rear
            && let Some(s) = m.get("rear")
        {
            f.add += s.add;
        }
        f
    }

    /// Can the attacker fight the defender now, and who fights? (No dice.)
    pub(super) fn melee_plan(
        &self,
        state: &GameState,
        p: &MeleeParams,
    ) -> Result<MeleePlan, RuleError> {
        let (ai, a) = unit(state, &p.attacker)?;
        let (di, d) = unit(state, &p.defender)?;
        troops(a)?;
        if a.side == d.side {
            return Err(refuse(
                RefusalKind::NotAnEnemy,
                "a unit does not fight its own side",
            ));
        }
        if ust(a).shaken {
            return Err(refuse(
                RefusalKind::Morale,
                format!("{} is shaken and cannot initiate a melee", a.name),
            ));
        }
        if a.formation == SQUARE {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is in square: a square cannot initiate a melee", a.name),
            ));
        }
        self.check_may_act(state, a)?;
        if p.evade {
            self.check_scouts_evade(d)?;
        }
        let contact = self.contact_in() + self.data.movement.contact_slack_in;
        let a_all = ids(&alive(state, a));
        let d_all = ids(&alive(state, d));
        let near = |x: FigureId, ys: &[FigureId], r: f64| {
            ys.iter()
                .any(|y| (pos(state, x) - pos(state, *y)).norm() <= r)
        };
        let mut attackers: Vec<FigureId> = a_all
            .iter()
            .copied()
            .filter(|x| near(*x, &d_all, contact))
            .collect();
        if attackers.is_empty() {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!("{} is not in contact with {}", a.name, d.name),
            ));
        }
        let contacted: Vec<FigureId> = d_all
            .iter()
            .copied()
            .filter(|x| near(*x, &attackers, contact))
            .collect();
        // "Any defending figures within 6" of the initially contacted
        // figures are considered support and will fight in the melee'":
        // the defender's own and those of its side's other units, but a
        // square "cannot support other melee's".
        let support = self.data.melee.support_in;
        let mut defenders: Vec<FigureId> = d_all
            .iter()
            .copied()
            .filter(|x| contacted.contains(x) || near(*x, &contacted, support))
            .collect();
        let mut supporters = Vec::new();
        // Troops in a building "cannot support outside melee's".
        let d_building = self.building_of(state, d).map(|b| b.name.as_str());
        for (oi, o) in state.units.iter().enumerate() {
            if oi == di || o.side != d.side || o.formation == SQUARE {
                continue;
            }
            let o_building = self.building_of(state, o).map(|b| b.name.as_str());
            if o_building.is_some() && o_building != d_building {
                continue;
            }
            let theirs: Vec<FigureId> = ids(&alive(state, o))
                .into_iter()
                .filter(|x| near(*x, &contacted, support))
                .collect();
            if !theirs.is_empty() {
                supporters.push(oi);
                defenders.extend(theirs);
            }
        }
        // "Officers/Emirs are the last to fight."
        let officer_last = |ids: &mut Vec<FigureId>| {
            ids.sort_by_key(|id| state.figure(*id).is_some_and(|f| f.leader));
        };
        officer_last(&mut attackers);
        officer_last(&mut defenders);
        Ok(MeleePlan {
            attacker: ai,
            defender: di,
            attackers,
            defenders,
            supporters,
        })
    }

    /// The pairs fight until one side has nobody left in the melee area.
    /// Returns whether the attackers and the defenders still have men in it.
    fn fight_rounds(
        &self,
        state: &GameState,
        plan: &mut MeleePlan,
        from_rear: bool,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        let (a, d) = (&state.units[plan.attacker], &state.units[plan.defender]);
        let d_cas = if from_rear {
            self.data.melee.rear_casualty_max
        } else {
            self.data.melee.casualty_max
        };
        for _ in 0..MAX_MELEE_ROUNDS {
            if plan.attackers.is_empty() || plan.defenders.is_empty() {
                break;
            }
            let pairs = plan.attackers.len().min(plan.defenders.len());
            let (mut a_out, mut d_out) = (Vec::new(), Vec::new());
            for i in 0..pairs {
                let (x, y) = (plan.attackers[i], plan.defenders[i]);
                let rolls = dice.roll_n(2, 6)?;
                ev.push(Event::Rolled {
                    purpose: "melee pair".into(),
                    figure: Some(x),
                    dice: rolls.clone(),
                });
                let fx = self.fighter(state, a, x, false, from_rear);
                let dy = unit_of(state, y).map_or(d, |(_, o)| o);
                let fy = self.fighter(state, dy, y, true, from_rear);
                match pair_winner(fx, fy, rolls[0].face, rolls[1].face) {
                    Some(true) => {
                        d_out.push(y);
                        if rolls[1].face <= d_cas {
                            ev.push(kill(y));
                        }
                    }
                    Some(false) => {
                        a_out.push(x);
                        if rolls[0].face <= self.data.melee.casualty_max {
                            ev.push(kill(x));
                        }
                    }
                    None => {}
                }
            }
            plan.attackers.retain(|x| !a_out.contains(x));
            plan.defenders.retain(|y| !d_out.contains(y));
        }
        Ok(())
    }

    pub(super) fn resolve_melee(
        &self,
        state: &GameState,
        p: &MeleeParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut plan = self.melee_plan(state, p)?;
        let (a, d) = (&state.units[plan.attacker], &state.units[plan.defender]);
        let mut ev = vec![
            Self::acted(state, plan.attacker),
            Event::VolleyFire(VfEvent::MeleeFought { at: state.clock() }),
        ];
        if p.evade {
            let (evaded, moved) = self.scouts_evade(state, d, a, dice)?;
            ev.extend(evaded);
            if moved {
                ev.push(Event::Note {
                    text: format!("{} evade the melee with {}", d.name, a.name),
                });
                return Ok(ev);
            }
        }
        ev.push(Event::Note {
            text: format!(
                "{} men of {} fight {} of {}{}{}",
                plan.attackers.len(),
                a.name,
                plan.defenders.len(),
                d.name,
                if plan.supporters.is_empty() {
                    String::new()
                } else {
                    let names: Vec<&str> = plan
                        .supporters
                        .iter()
                        .map(|i| state.units[*i].name.as_str())
                        .collect();
                    format!(" with support from {}", names.join(", "))
                },
                if p.from_rear {
                    ", hit from the rear"
                } else {
                    ""
                }
            ),
        });
        self.fight_rounds(state, &mut plan, p.from_rear, dice, &mut ev)?;
        let mut defending = vec![plan.defender];
        defending.extend(plan.supporters.iter().copied());
        let (losers, wi) = match (plan.attackers.is_empty(), plan.defenders.is_empty()) {
            (true, false) => (vec![plan.attacker], plan.defender),
            (false, true) => (defending, plan.attacker),
            _ => {
                ev.push(Event::Note {
                    text: "the melee is undecided".into(),
                });
                return Ok(ev);
            }
        };
        // The winner's bonus: reform, reface or one normal move
        // (`winner-move`, in this melee phase).
        ev.push(Event::VolleyFire(VfEvent::MeleeWon {
            unit: wi,
            at: Some(state.clock()),
        }));
        // The men killed in the fight do not fall back.
        let after = super::scouts::applied(state, &ev);
        ev.extend(self.fall_back(&after, &losers, wi, dice)?);
        Ok(ev)
    }

    /// "The loser falls back a six D6 distance directly away from the fight
    /// and is now SHAKEN. Loser effect no friendly units in their path, but
    /// are captured if they collide with organized enemy forces. If this
    /// fall back takes the losing force to the table edge, roll a D6 for
    /// direction along that edge. Fall back direction is perpendicular to
    /// the front facing of the winner." One roll for the losing force,
    /// every unit that fought on its side.
    fn fall_back(
        &self,
        state: &GameState,
        losers: &[usize],
        wi: usize,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let names: Vec<&str> = losers
            .iter()
            .map(|i| state.units[*i].name.as_str())
            .collect();
        let rolls = dice.roll_n(self.data.melee.fall_back_dice as usize, 6)?;
        let dist = f64::from(total(&rolls));
        let mut ev = vec![Event::Rolled {
            purpose: format!("{} falls back", names.join(", ")),
            figure: None,
            dice: rolls,
        }];
        for li in losers {
            ev.push(Event::VolleyFire(VfEvent::Shaken {
                unit: *li,
                shaken: true,
            }));
            // "If a gun crew loses a melee they rout to their direct rear,
            // disordered, the gun stays in place."
            if let Some(left) = self.gun_left_by(state, *li) {
                ev.push(left);
                ev.push(Event::Note {
                    text: format!("{}'s gun stays in place", state.units[*li].name),
                });
            }
            self.fall_back_unit(state, *li, wi, dist, dice, &mut ev)?;
        }
        Ok(ev)
    }

    /// One losing unit's fall-back of `dist` inches.
    fn fall_back_unit(
        &self,
        state: &GameState,
        li: usize,
        wi: usize,
        dist: f64,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        let (l, w) = (&state.units[li], &state.units[wi]);
        let l_ids = ids(&alive(state, l));
        let w_ids = ids(&alive(state, w));
        let facing = w_ids
            .first()
            .and_then(|id| state.figure(*id))
            .map_or(0.0, |f| f.placement.facing_deg)
            .to_radians();
        let mut dir = Vector2::new(facing.cos(), facing.sin());
        // Away from the fight: along the winner's facing, turned round when
        // the winner faces away from the loser (a rear attack's winner).
        if dir.dot(&(centroid(state, &l_ids) - centroid(state, &w_ids))) < 0.0 {
            dir = -dir;
        }
        // A gun crew routs "to their direct rear".
        if ust(l).gun
            && let Some(f) = l_ids.first().and_then(|id| state.figure(*id))
        {
            let a = f.placement.facing_deg.to_radians();
            dir = -Vector2::new(a.cos(), a.sin());
        }
        let from = centroid(state, &l_ids);
        let step = self.fall_back_step(state, from, dir, dist, dice, ev)?;
        let mut captured = 0;
        for id in l_ids {
            let Some(f) = state.figure(id) else { continue };
            let start = f.placement.center_in_table;
            let to = start + step;
            let to = Point2::new(
                to.x.clamp(0.0, state.table.width_in),
                to.y.clamp(0.0, state.table.depth_in),
            );
            if self.collides_with_enemy(state, l, start, to) {
                captured += 1;
                ev.push(kill(id));
                continue;
            }
            ev.push(Event::Moved {
                figure: id,
                to_in: quantized(to),
                facing_deg: f.placement.facing_deg,
                pace: Pace::Evade,
                distance_in: (to - start).norm(),
                through_rough: false,
            });
        }
        ev.push(Event::Note {
            text: format!(
                "{} loses the melee, falls back {dist} in and is shaken{}",
                l.name,
                if captured > 0 {
                    format!("; {captured} captured by the enemy in their path")
                } else {
                    String::new()
                }
            ),
        });
        Ok(())
    }

    /// The fall-back's displacement: straight on, or to the table edge and
    /// then along it the way a d6 says.
    fn fall_back_step(
        &self,
        state: &GameState,
        from: Point2<f64>,
        dir: Vector2<f64>,
        dist: f64,
        dice: &mut dyn Dice,
        ev: &mut Vec<Event>,
    ) -> Result<Vector2<f64>, RuleError> {
        let to_edge = |p: f64, v: f64, max: f64| {
            if v > 0.0 {
                (max - p) / v
            } else if v < 0.0 {
                -p / v
            } else {
                f64::INFINITY
            }
        };
        let t = to_edge(from.x, dir.x, state.table.width_in)
            .min(to_edge(from.y, dir.y, state.table.depth_in))
            .max(0.0);
        if !from.x.is_finite() || t >= dist {
            return Ok(dir * dist);
        }
        let roll = dice.roll(6)?;
        ev.push(Event::Rolled {
            purpose: "fall back reaches the table edge: direction along it".into(),
            figure: None,
            dice: vec![roll],
        });
        let along = Vector2::new(-dir.y, dir.x);
        let along = if roll.face <= EDGE_LEFT_MAX_FACE {
            along
        } else {
            -along
        };
        Ok(dir * t + along * (dist - t))
    }

    /// Does a man's fall-back path cross an organized (not shaken) enemy?
    fn collides_with_enemy(
        &self,
        state: &GameState,
        l: &Unit,
        start: Point2<f64>,
        to: Point2<f64>,
    ) -> bool {
        state
            .units
            .iter()
            .filter(|o| o.side != l.side && !ust(o).shaken)
            .flat_map(|o| alive(state, o))
            .filter_map(|(_, id)| state.figure(id))
            .filter(|f| (f.placement.center_in_table - start).norm() > self.contact_in())
            .any(|f| line_hits_base(start, to, &f.placement))
    }

    /// Centre-to-centre distance that counts as contact, in.
    pub(super) fn contact_in(&self) -> f64 {
        self.data.movement.melee_contact_gap_in + CONTACT_EXTRA_IN
    }
}
