//! For 10 000 seeded resolutions of each kind of action, the observed
//! frequency of every outcome agrees with the exact odds within 3 standard
//! errors.

use crate::common::*;
use nalgebra::Point2;
use spotter::game::{Command, Event, FigureId, GameState, Scenario};
use spotter::rules::RuleSet;
use spotter::rules::dice::seeded;
use spotter::rules::stand_to::Wound;
use spotter::rules::stand_to::action::{Action as St, AimUse, FireMode};
use spotter::rules::stand_to::event::Event as StandToEvent;

const TRIALS: u32 = 10_000;

/// Which named outcomes happened in one resolution.
type Classify = dyn Fn(&GameState, &[Event]) -> Vec<String>;

fn check(kind: &str, seed: u64, state: &GameState, cmd: &Command, classify: &Classify) {
    let r = rules();
    let odds = r.odds(state, cmd).unwrap();
    assert!(!odds.is_empty(), "{kind}: no odds");
    let mut dice = seeded(seed);
    let mut counts = vec![0_u32; odds.len()];
    for _ in 0..TRIALS {
        let events = r.resolve(state, cmd, &mut dice).unwrap();
        let happened = classify(state, &events);
        for (c, o) in counts.iter_mut().zip(&odds) {
            if happened.contains(&o.name) {
                *c += 1;
            }
        }
    }
    for (c, o) in counts.iter().zip(&odds) {
        let n = f64::from(TRIALS);
        let freq = f64::from(*c) / n;
        let se = (o.p * (1.0 - o.p) / n).sqrt();
        if se == 0.0 {
            assert_eq!(freq, o.p, "{kind} {}: certain outcome", o.name);
        } else {
            let z = (freq - o.p) / se;
            assert!(
                z.abs() <= 3.0,
                "{kind} {}: observed {freq:.4}, odds {:.4}, z = {z:.2}",
                o.name,
                o.p
            );
        }
        eprintln!(
            "{kind:<12} {:<22} odds {:.4} observed {freq:.4}",
            o.name, o.p
        );
    }
}

fn wounded(events: &[Event], who: FigureId, mount: bool) -> Option<Wound> {
    events.iter().rev().find_map(|e| match e {
        Event::Wounded {
            figure,
            wound,
            mount: m,
        } if *figure == who && *m == mount => Some(*wound),
        _ => None,
    })
}

fn fire_classes(target: FigureId) -> Box<Classify> {
    Box::new(move |_, ev| {
        let mut out = Vec::new();
        for e in ev {
            if let Event::StandTo(StandToEvent::FireResolved {
                on_target: true,
                saved,
                ..
            }) = e
            {
                out.push("p_on_target".to_owned());
                out.push(if *saved { "p_saved" } else { "p_hit" }.to_owned());
            }
        }
        for (mount, prefix) in [(false, "p_"), (true, "p_mount_")] {
            if let Some(w) = wounded(ev, target, mount) {
                let name = match w {
                    Wound::Light => "light",
                    Wound::Serious => "serious",
                    Wound::Killed => "killed",
                };
                out.push(format!("{prefix}{name}"));
            }
        }
        out
    })
}

fn load(path: &str) -> GameState {
    Scenario::load(std::path::Path::new(path), &registry())
        .unwrap()
        .state
}

#[test]
fn aimed_fire_dragoon() {
    let mut s = load("scenarios/dragoon.toml");
    at_phase(&mut s, "fire", "Trooper Hobbs");
    let (a, t) = (id(&s, "Trooper Hobbs"), id(&s, "Hadendowa warrior"));
    let cmd = Command::StandTo(St::Fire {
        shooter: a,
        target: t,
        mode: FireMode::Aimed,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: false,
    });
    check("aimed fire", 1, &s, &cmd, &*fire_classes(t));
}

#[test]
fn aimed_fire_with_aiming_bonus_at_a_leader_in_soft_cover() {
    let mut s = state_from(&format!(
        "[[terrain]]\nname = \"scrub\"\nkinds = [\"soft-cover\"]\npolygon_in = [[25.0, 5.0], [35.0, 5.0], [35.0, 15.0], [25.0, 15.0]]\n{}{}",
        tommy(5, 10.0, 10.0, "loaded = true"),
        fig(
            "Chief",
            "Natives",
            "revolver",
            3,
            30.0,
            10.0,
            "rank = \"chief\"\nleader = true\npace = \"walk\""
        )
    ));
    at_phase(&mut s, "fire", "Tommy");
    let (a, t) = (id(&s, "Tommy"), id(&s, "Chief"));
    let aim = s.figures[a.index()].rules.stand_to_mut();
    aim.aiming_at = Some(t);
    aim.aim_ready_from = Some(0);
    let cmd = Command::StandTo(St::Fire {
        shooter: a,
        target: t,
        mode: FireMode::Aimed,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: false,
    });
    check("aimed+bonus", 2, &s, &cmd, &*fire_classes(t));
}

#[test]
fn snapshot_at_a_mounted_target() {
    let mut s = state_from(&format!(
        "{}{}",
        fig("Tommy", "British", "revolver", 3, 10.0, 10.0, ""),
        fig(
            "Rider",
            "Natives",
            "revolver",
            3,
            13.0,
            10.0,
            "base = \"mounted\"\nmount_speed = \"canter\""
        )
    ));
    at_phase(&mut s, "fire", "Tommy");
    let (a, t) = (id(&s, "Tommy"), id(&s, "Rider"));
    let cmd = Command::StandTo(St::Fire {
        shooter: a,
        target: t,
        mode: FireMode::Snap,
        rapid: false,
        aim_use: AimUse::Best,
        at_mount: true,
    });
    check("snap mounted", 3, &s, &cmd, &*fire_classes(t));
}

#[test]
fn melee_one_on_one_pawnee() {
    let mut s = load("scenarios/pawnee.toml");
    at_phase(&mut s, "melee", "Pawnee brave");
    let (p, t) = (id(&s, "Pawnee brave"), id(&s, "Trooper Kelly"));
    let cmd = Command::StandTo(St::Melee {
        attackers: vec![p],
        defenders: vec![t],
    });
    check("melee", 4, &s, &cmd, &move |_, ev| {
        let mut out = Vec::new();
        let (aw, dw) = (
            wounded(ev, p, false).is_some(),
            wounded(ev, t, false).is_some(),
        );
        if aw {
            out.push("p_attacker_wounded".into());
        }
        if dw {
            out.push("p_defender_wounded".into());
        }
        if !aw && !dw {
            out.push("p_no_wound".into());
        }
        out
    });
}

fn named_wounds(state: &GameState, ev: &[Event], suffix: &str) -> Vec<String> {
    state
        .figures
        .iter()
        .filter(|f| wounded(ev, f.id, false).is_some())
        .map(|f| format!("p_{}_{suffix}", f.name))
        .collect()
}

#[test]
fn melee_outnumbered() {
    let mut s = state_from(&format!(
        "{}{}{}",
        tommy(5, 50.0, 50.0, ""),
        fig(
            "A",
            "Natives",
            "thrown-spear",
            3,
            51.5,
            50.0,
            "pace = \"charge\"\nshield = true"
        ),
        fig("B", "Natives", "thrown-spear", 2, 50.0, 51.5, "")
    ));
    at_phase(&mut s, "melee", "A");
    let cmd = Command::StandTo(St::Melee {
        attackers: vec![id(&s, "A"), id(&s, "B")],
        defenders: vec![id(&s, "Tommy")],
    });
    check("outnumbered", 5, &s, &cmd, &|st, ev| {
        named_wounds(st, ev, "wounded")
    });
}

#[test]
fn artillery_cone() {
    let mut s = state_from(&format!(
        "{}{}{}{}",
        fig(
            "Gun",
            "British",
            "nordenfelt-gun",
            3,
            50.0,
            10.0,
            "loaded = true\nammo = 5\nfacing_deg = 90.0"
        ),
        fig("A", "Natives", "thrown-spear", 3, 50.0, 40.0, ""),
        fig(
            "B",
            "Natives",
            "thrown-spear",
            3,
            52.0,
            40.0,
            "prone = true"
        ),
        fig(
            "Chief",
            "Natives",
            "revolver",
            3,
            49.0,
            30.0,
            "rank = \"chief\"\nleader = true"
        )
    ));
    at_phase(&mut s, "fire", "Gun");
    let cmd = Command::StandTo(St::FireGun { gun: id(&s, "Gun") });
    check("gun", 6, &s, &cmd, &|st, ev| {
        let mut out = named_wounds(st, ev, "hit");
        if ev.iter().any(
            |e| matches!(e, Event::Rolled { purpose, .. } if purpose == "save against the gun"),
        ) {
            out.push("p_on_target".into());
        }
        out
    });
}

#[test]
fn spotting_novice_leader_advance_recovery_rescue() {
    // Spotting.
    let s = scout_and_hidden(30.0);
    let cmd = Command::StandTo(St::Spot {
        scout: id(&s, "Scout"),
        center_in: Point2::new(30.5, 30.0),
    });
    check("spot", 7, &s, &cmd, &|_, ev| {
        if ev
            .iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::Spotted { .. })))
        {
            vec!["p_spotted".into()]
        } else {
            vec![]
        }
    });
    // Novice leader's first attack.
    let s = state_from(&fig(
        "Lt",
        "British",
        "revolver",
        1,
        10.0,
        10.0,
        "rank = \"officer\"\nleader = true",
    ));
    let exp = |_: &GameState, ev: &[Event]| -> Vec<String> {
        if ev
            .iter()
            .any(|e| matches!(e, Event::StandTo(StandToEvent::Experience { .. })))
        {
            vec!["p_becomes_trained".into(), "p_advance".into()]
        } else {
            vec![]
        }
    };
    check(
        "first attack",
        8,
        &s,
        &Command::StandTo(St::FirstAttack {
            leader: id(&s, "Lt"),
        }),
        &exp,
    );
    // Advancement after a battle.
    let s = state_from(&fig("Pte", "British", "revolver", 3, 10.0, 10.0, ""));
    check(
        "advance",
        9,
        &s,
        &Command::StandTo(St::Advance {
            figure: id(&s, "Pte"),
        }),
        &exp,
    );
    // Recovery from a serious wound.
    let mut s = state_from(&fig("Pte", "British", "revolver", 3, 10.0, 10.0, ""));
    s.figures[0].wound = Some(Wound::Serious);
    check(
        "recover",
        10,
        &s,
        &Command::StandTo(St::Recover {
            figure: id(&s, "Pte"),
            cared_for: false,
        }),
        &|_, ev| {
            let mut out = Vec::new();
            if ev
                .iter()
                .any(|e| matches!(e, Event::StandTo(StandToEvent::Healed { wound: None, .. })))
            {
                out.push("p_healed".into());
            }
            if ev.iter().any(|e| {
                matches!(
                    e,
                    Event::Wounded {
                        wound: Wound::Killed,
                        ..
                    }
                )
            }) {
                out.push("p_dies".into());
            }
            out
        },
    );
    // Rescue reaction of the nearest friend.
    let mut s = state_from(&format!(
        "{}{}",
        fig("Hurt", "British", "revolver", 3, 10.0, 10.0, ""),
        fig("Friend", "British", "revolver", 3, 14.0, 10.0, "")
    ));
    s.figures[0].wound = Some(Wound::Light);
    check(
        "rescue",
        11,
        &s,
        &Command::StandTo(St::Rescue {
            wounded: id(&s, "Hurt"),
        }),
        &|_, ev| {
            let mut out = Vec::new();
            if ev
                .iter()
                .any(|e| matches!(e, Event::StandTo(StandToEvent::Idle { .. })))
            {
                out.push("p_freeze".into());
            }
            if ev
                .iter()
                .any(|e| matches!(e, Event::Note { text } if text.contains("must try to rescue")))
            {
                out.push("p_rescue".into());
            }
            out
        },
    );
}
