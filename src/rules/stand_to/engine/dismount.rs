//! Dismounting: "Dismounted riders must either allocate one horseholder
//! for every four mounts or spend one turn tying the reins to a tree, or
//! spend four turns driving a peg and tying the reins to it."

use super::super::action::{Action, DismountParams, HoldBy};
use super::super::status::MountHeld;
use super::*;

impl StandToRules {
    /// A figure by its scenario name.
    fn named<'s>(state: &'s GameState, name: &str) -> Result<&'s Figure, RuleError> {
        state.figure_named(name).ok_or_else(|| RuleError::Unknown {
            what: "figure",
            name: name.to_owned(),
        })
    }

    /// Can the Stand To! action be carried out? No dice.
    pub(super) fn check_action(&self, state: &GameState, action: &Action) -> Result<(), RuleError> {
        self.action_events(state, action).map(|_| ())
    }

    /// The events of a Stand To! action (neither rolls dice).
    pub(super) fn resolve_action(
        &self,
        state: &GameState,
        sc: &mut Scratch,
        action: &Action,
    ) -> Result<(), RuleError> {
        for e in self.action_events(state, action)? {
            sc.push(e);
        }
        Ok(())
    }

    fn action_events(&self, state: &GameState, action: &Action) -> Result<Vec<Event>, RuleError> {
        match action {
            Action::Dismount(p) => self.dismount_events(state, p),
            Action::DrivePeg(p) => {
                let f = Self::named(state, &p.figure)?;
                self.require_phase(state, "non-combat")?;
                Self::require_own_turn(state, f)?;
                Self::require_able(state, f)?;
                let Some(MountHeld::Peg { turns_left }) = status::st(f).mount_held else {
                    return Err(refuse(
                        RefusalKind::CannotDo,
                        format!("{} is not driving a peg", f.name),
                    )
                    .by(f.id));
                };
                if turns_left == 0 {
                    return Err(refuse(
                        RefusalKind::AlreadyActed,
                        format!("{}'s mount is already tied to its peg", f.name),
                    )
                    .by(f.id));
                }
                Ok(vec![
                    Event::StandTo(StandToEvent::PegDriven {
                        figure: f.id,
                        turns_left: turns_left - 1,
                    }),
                    Self::busy_this_turn(state, f, "driving the peg"),
                ])
            }
            other => Err(RuleError::Unsupported {
                rule_set: super::super::NAME.to_owned(),
                action: other.name().to_owned(),
            }),
        }
    }

    /// The figure spends the rest of this turn at the task.
    fn busy_this_turn(state: &GameState, f: &Figure, task: &str) -> Event {
        Event::StandTo(StandToEvent::Idle {
            figure: f.id,
            until_turn: state.turn,
            reason: format!("{task}: it takes the turn"),
        })
    }

    fn dismount_events(
        &self,
        state: &GameState,
        p: &DismountParams,
    ) -> Result<Vec<Event>, RuleError> {
        let f = Self::named(state, &p.figure)?;
        self.require_phase(state, "non-combat")?;
        Self::require_own_turn(state, f)?;
        Self::require_able(state, f)?;
        if !f.mounted() {
            return Err(
                refuse(RefusalKind::CannotDo, format!("{} is not mounted", f.name)).by(f.id),
            );
        }
        if !self.engaged_with(state, f).is_empty() {
            return Err(refuse(
                RefusalKind::Engaged,
                format!("{} is engaged in melee: evading is all he may do", f.name),
            )
            .by(f.id));
        }
        let m = &self.data.mount;
        let (held, busy) = match p.by {
            HoldBy::Horseholder => (self.horseholder(state, f, p.holder.as_deref())?, None),
            HoldBy::Tree => (MountHeld::Tree, Some("tying the reins to a tree")),
            HoldBy::Peg => (
                MountHeld::Peg {
                    turns_left: m.peg_turns.saturating_sub(1),
                },
                Some("driving a peg"),
            ),
        };
        let mut events = vec![Event::StandTo(StandToEvent::Dismounted {
            figure: f.id,
            held,
        })];
        if let Some(task) = busy
            && (p.by != HoldBy::Tree || m.tie_tree_turns > 0)
        {
            events.push(Self::busy_this_turn(state, f, task));
        }
        Ok(events)
    }

    /// The horseholder named `holder` for `f`'s mount: a man of his side on
    /// foot, by the mount, holding fewer than his four.
    fn horseholder(
        &self,
        state: &GameState,
        f: &Figure,
        holder: Option<&str>,
    ) -> Result<MountHeld, RuleError> {
        let Some(name) = holder else {
            return Err(refuse(
                RefusalKind::Malformed,
                "name the horseholder (`holder`)",
            ));
        };
        let h = Self::named(state, name)?;
        let m = &self.data.mount;
        if h.side != f.side || !h.active() || h.mounted() || h.id == f.id {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} cannot hold {}'s mount: a horseholder is an active man of his side on foot",
                    h.name, f.name
                ),
            )
            .by(h.id));
        }
        let r = self.rule_range(state, h, f, RangeMethod::EdgeToEdge);
        if !r.at_most(m.horseholder_reach_in).value {
            return Err(refuse(
                RefusalKind::NotInContact,
                format!(
                    "{} is {:.1} in from {}'s mount: a horseholder takes the reins within {} in",
                    h.name, r.value_in, f.name, m.horseholder_reach_in
                ),
            )
            .by(h.id));
        }
        let held = state
            .figures
            .iter()
            .filter(|o| {
                matches!(
                    status::st(o).mount_held,
                    Some(MountHeld::Horseholder { ref holder }) if *holder == h.name
                )
            })
            .count();
        if held >= m.mounts_per_horseholder as usize {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} already holds {held} mounts: one horseholder for every {} mounts",
                    h.name, m.mounts_per_horseholder
                ),
            )
            .by(h.id));
        }
        Ok(MountHeld::Horseholder {
            holder: h.name.clone(),
        })
    }
}
