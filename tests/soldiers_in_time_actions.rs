//! Soldiers in Time actions on the engine: phase checks, rally and morale
//! triggers, flag bearer, grapeshot, artillery, grenades, mines, horses and
//! follow-through. Dice and cards are typed in, so each outcome is the one
//! the rule text gives for those dice; odds are checked against counts
//! worked out by hand from the text.

use crate::common::soldiers_in_time::*;
use crate::rule_actions::named;

use approx::assert_relative_eq;
use serde_json::json;
use spotter::core::RefusalKind;
use spotter::game::Event;
use spotter::rules::soldiers_in_time::{
    Shot, damage_distribution, damage_odds, full_deck, horse_impact_distribution, morale_odds,
};
use spotter::rules::stand_to::Wound;

#[test]
fn actions_only_in_their_phase_and_side() {
    let figs = fig(
        "A",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"status = { order = "volley-fire" }"#,
    ) + &fig("B", "Black", 10.0, 20.0, 270.0, "");
    let s = state(&figs, "", "");
    let fire = action("fire", json!({ "shooter": "A" }));
    for phase in [
        "rally",
        "command",
        "movement-horses",
        "movement-men",
        "melee",
        "follow-through",
    ] {
        let why = refused(
            &at_phase(s.clone(), phase, 0),
            &fire,
            RefusalKind::WrongPhase,
        );
        assert!(why.contains("shooting phase"), "{phase}: {why}");
    }
    assert!(
        rules()
            .check(&at_phase(s.clone(), "shooting", 0), &fire)
            .is_ok()
    );
    // Black's figure cannot fire in Red's turn.
    let why = refused(
        &at_phase(s.clone(), "shooting", 0),
        &action("fire", json!({ "shooter": "B" })),
        RefusalKind::NotYourTurn,
    );
    assert!(why.contains("Red's turn"), "{why}");
    let act = action(
        "activate",
        json!({ "leader": "A", "order": "forward-march", "men": [] }),
    );
    assert!(
        refused(
            &at_phase(s.clone(), "shooting", 0),
            &act,
            RefusalKind::WrongPhase
        )
        .contains("command")
    );
    let mv = action("move", json!({ "figure": "A", "path_in": [[10.0, 12.0]] }));
    assert!(
        refused(
            &at_phase(s.clone(), "shooting", 0),
            &mv,
            RefusalKind::WrongPhase
        )
        .contains("movement-men phase")
    );
    let rally = action("rally", json!({}));
    assert!(
        refused(&at_phase(s, "melee", 0), &rally, RefusalKind::WrongPhase).contains("rally phase")
    );
}

#[test]
fn grapeshot_hits_every_enemy_in_the_cone_within_8_in() {
    let figs = fig(
        "Gun",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"status = { "loaded-with" = "grapeshot" }"#,
    )
    .replace("weapon = \"musket\"", "weapon = \"cannon\"")
        // In the cone, 5 in: damage 10 against no armour kills (save -4).
        + &fig("Near", "Black", 10.0, 15.0, 270.0, r#"status = { armour = "0" }"#)
        // In the cone, 7.9 in: damage 3 against armour 3: a morale check.
        + &fig("Far", "Black", 12.5, 17.5, 270.0, r#"status = { armour = "3" }"#)
        // 45 degrees off the gun's facing: outside the 45 degree cone.
        + &fig("Wide", "Black", 15.0, 15.0, 270.0, "")
        // Straight ahead but 9 in away.
        + &fig("Beyond", "Black", 10.0, 19.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "shooting", 0);
    // Near's save card (any number fails a save of -4), Far's morale card
    // (a black King without a leader: he routs).
    set_deck(&mut s, "Black", &["9S", "KS"]);
    let c = action("artillery", json!({ "gun": "Gun" }));
    // d10 for Near, the save card (1 of 2), d10 for Far, the morale card.
    let (after, ev) = run(&s, &c, &[10, 1, 3, 1]);
    assert_eq!(named(&after, "Near").wound, Some(Wound::Killed));
    assert!(sit(named(&after, "Far")).routed);
    // Routed 4 in away from the gun.
    let moved = (named(&after, "Far").placement.center_in_table
        - named(&s, "Far").placement.center_in_table)
        .norm();
    assert_relative_eq!(moved, 4.0, epsilon = 1e-9);
    assert_eq!(named(&after, "Wide").wound, None);
    assert_eq!(named(&after, "Beyond").wound, None);
    assert!(sit(named(&after, "Gun")).loaded_with.is_none());
    let grape_dice = ev
        .iter()
        .filter(|e| matches!(e, Event::Rolled { purpose, .. } if purpose == "grapeshot"))
        .count();
    assert_eq!(grape_dice, 2, "one d10 per stand in the cone");
    // Fired once: the marker is gone.
    assert!(refused(&after, &c, RefusalKind::NotLoaded).contains("not loaded"));
}

#[test]
fn grapeshot_odds_from_the_card_counts() {
    // 1d10 against armour 0 and experience 6: damage d leaves save 6 - d;
    // saves 5..1 pass on 4n of 52 cards (face cards fail without a leader).
    let d = data();
    let shot = Shot {
        fire_skill: 0,
        modifier: 0,
        already_loaded: true,
        target_armour: 0,
        target_experience: 6,
        target_red: false,
        leader_in_range: false,
    };
    let dist = damage_distribution(1, d.special.grapeshot_damage_sides, 0);
    let (morale, save, killed) = damage_odds(&dist, &shot, &full_deck());
    assert_relative_eq!(morale, 0.0);
    assert_relative_eq!(save, 1.0, epsilon = 1e-12);
    assert_relative_eq!(killed, 1.0 - 60.0 / 520.0, epsilon = 1e-12);
    // With a leader in range his own colour's 6 face cards also save,
    // whatever the save number.
    let led = Shot {
        leader_in_range: true,
        ..shot
    };
    let (_, _, k) = damage_odds(&dist, &led, &full_deck());
    assert_relative_eq!(k, 1.0 - (60.0 + 10.0 * 6.0) / 520.0, epsilon = 1e-12);
}

#[test]
fn rally_needs_a_leader_for_face_cards() {
    let figs = fig("Leader", "Red", 10.0, 10.0, 90.0, "leader = true")
        + &fig(
            "Near",
            "Red",
            11.5,
            10.0,
            90.0,
            r#"status = { routed = "true" }"#,
        )
        + &fig(
            "Alone",
            "Red",
            40.0,
            10.0,
            90.0,
            r#"status = { routed = "true" }"#,
        )
        + &fig(
            "Slow",
            "Red",
            10.0,
            12.0,
            90.0,
            r#"status = { routed = "true" }"#,
        )
        + &fig("Enemy", "Black", 30.0, 40.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "rally", 0);
    // Near: a face card with the leader 0.5 in away rallies; Alone: a face
    // card without a leader: removed; Slow: a 9 over his 6: removed.
    set_deck(&mut s, "Red", &["QH", "KC", "9D"]);
    let (after, ev) = run(&s, &action("rally", json!({})), &[1, 1, 1]);
    assert!(!sit(named(&after, "Near")).routed);
    assert!(sit(named(&after, "Alone")).removed.is_some());
    assert!(sit(named(&after, "Slow")).removed.is_some());
    let p: Vec<f64> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Odds { odds, .. } => Some(odds[0].p),
            _ => None,
        })
        .collect();
    // Near: 6 number cards of 3 pass (QH is a face: passes), so 2 of 3.
    assert_relative_eq!(p[0], 2.0 / 3.0, epsilon = 1e-12);
    // Full-deck odds: experience 6 and a leader near: 24 numbers + 12 faces.
    assert_relative_eq!(
        morale_odds(&data(), &full_deck(), 6, false, true),
        36.0 / 52.0,
        epsilon = 1e-12
    );
    assert_relative_eq!(
        morale_odds(&data(), &full_deck(), 6, false, false),
        24.0 / 52.0,
        epsilon = 1e-12
    );
}

#[test]
fn a_dead_leader_and_flag_bearer_trigger_morale_checks() {
    let gun = fig(
        "Gun",
        "Black",
        10.0,
        30.0,
        270.0,
        r#"status = { "loaded-with" = "grapeshot" }"#,
    )
    .replace("weapon = \"musket\"", "weapon = \"cannon\"");
    // The leader stands 5 in in front of the gun; a follower 2 in to his
    // side (outside 1 in, inside his 3 in command range, outside the cone).
    let figs = gun
        + &fig("Leader", "Red", 10.0, 25.0, 90.0, "leader = true")
        + &fig("Follower", "Red", 7.0, 25.0, 90.0, "")
        + &fig("Distant", "Red", 30.0, 25.0, 90.0, "");
    let mut s = at_phase(state(&figs, "", ""), "shooting", 1);
    // Leader's save card fails (damage 10), Follower's morale card is a
    // red King: face cards only pass near a (living) leader.
    set_deck(&mut s, "Red", &["9H", "KH"]);
    let (after, ev) = run(
        &s,
        &action("artillery", json!({ "gun": "Gun" })),
        &[10, 1, 1],
    );
    assert_eq!(named(&after, "Leader").wound, Some(Wound::Killed));
    assert!(sit(named(&after, "Follower")).routed);
    assert!(!sit(named(&after, "Distant")).routed);
    assert!(ev.iter().any(
        |e| matches!(e, Event::Odds { purpose, .. } if purpose.contains("his leader Leader fell"))
    ));

    // A flag bearer 6 in away steadies a man's morale check like a leader.
    let figs = fig(
        "Flag",
        "Red",
        16.0,
        10.0,
        90.0,
        r#"status = { flag = "true" }"#,
    ) + &fig("Man", "Red", 10.0, 10.0, 90.0, "")
        + &fig("Enemy", "Black", 10.0, 30.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "melee", 0);
    set_deck(&mut s, "Red", &["KH"]);
    let check = action(
        "morale-check",
        json!({ "figure": "Man", "reason": "charged by cavalry" }),
    );
    let (after, _) = run(&s, &check, &[1]);
    assert!(!sit(named(&after, "Man")).routed);
    // 9 in away he no longer counts.
    let mut far = s.clone();
    far.figures[0].placement.center_in_table.x = 19.5;
    set_deck(&mut far, "Red", &["KH"]);
    let (after, _) = run(&far, &check, &[1]);
    assert!(sit(named(&after, "Man")).routed);
}

#[test]
fn minefield_squares_roll_1_to_3_on_a_d10() {
    let figs = fig(
        "Sapper",
        "Red",
        6.5,
        11.0,
        0.0,
        r#"status = { order = "forward-march" }"#,
    ) + &fig("Enemy", "Black", 40.0, 40.0, 270.0, "");
    let s = at_phase(state(&figs, "", r#", mines = "8,10""#), "movement-men", 0);
    // Through the square (8..11, 10..13) and out: one roll; a 4 is safe.
    let through = action(
        "move",
        json!({ "figure": "Sapper", "path_in": [[12.0, 11.0]] }),
    );
    let (after, ev) = run(&s, &through, &[4]);
    assert_eq!(named(&after, "Sapper").wound, None);
    let p = ev.iter().find_map(|e| match e {
        Event::Odds { odds, .. } => Some(odds[0].p),
        _ => None,
    });
    assert_relative_eq!(p.expect("mine odds"), 0.3, epsilon = 1e-12);
    // Stopping inside: one roll on entering (the second comes when he
    // moves on).
    let stop = action(
        "move",
        json!({ "figure": "Sapper", "path_in": [[9.5, 11.0]] }),
    );
    let mut s2 = s.clone();
    set_deck(&mut s2, "Red", &["9H"]);
    // A 3: it explodes; blast d10 = 10 kills (save -4, card 9H).
    let (after, ev) = run(&s2, &stop, &[3, 10, 1]);
    let p = ev.iter().find_map(|e| match e {
        Event::Odds { odds, .. } => Some(odds[0].p),
        _ => None,
    });
    assert_relative_eq!(p.expect("mine odds"), 0.3, epsilon = 1e-12);
    assert_eq!(named(&after, "Sapper").wound, Some(Wound::Killed));
}

#[test]
fn horses_change_speed_one_step_and_follow_through_by_speed() {
    let rider = fig(
        "Rider",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"mount_speed = "trot"
status = { order = "forward-march" }"#,
    )
    .replace("base = \"foot\"", "base = \"mounted\"");
    let figs = rider + &fig("Enemy", "Black", 40.0, 50.0, 270.0, "");
    let s = at_phase(state(&figs, "", ""), "movement-horses", 0);
    assert_eq!(named(&s, "Rider").mount_level, Some(2));
    // Trot to gallop is two steps: refused.
    let gallop = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 30.0]], "speed": "gallop" }),
    );
    assert!(refused(&s, &gallop, RefusalKind::Movement).contains("walk to canter"));
    // Canter: 15 in, not 16.
    let canter16 = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 26.0]], "speed": "canter" }),
    );
    assert!(refused(&s, &canter16, RefusalKind::TooFar).contains("may move 15 in"));
    let canter = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 25.0]], "speed": "canter" }),
    );
    let (after, _) = run(&s, &canter, &[]);
    assert_eq!(named(&after, "Rider").mount_level, Some(3));
    // Follow-through: 15 in moved gives 3 in; 3.2 in is too far.
    let ft = at_phase(after.clone(), "follow-through", 0);
    let too_far = action(
        "follow-through",
        json!({ "figure": "Rider", "to_in": [10.0, 28.2] }),
    );
    assert!(refused(&ft, &too_far, RefusalKind::TooFar).contains("3 in"));
    let ok = action(
        "follow-through",
        json!({ "figure": "Rider", "to_in": [10.0, 28.0] }),
    );
    assert!(rules().check(&ft, &ok).is_ok());
    // Without an order the horse runs on straight at the same speed or
    // 5 in slower.
    let mut no_order = s.clone();
    no_order.figures[0].rules.soldiers_in_time_mut().order = None;
    let turn = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 14.0], [14.0, 14.0]] }),
    );
    assert!(refused(&no_order, &turn, RefusalKind::Movement).contains("straight"));
    let faster = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 20.0]], "speed": "canter" }),
    );
    assert!(refused(&no_order, &faster, RefusalKind::Movement).contains("walk to trot"));
    let slower = action(
        "move",
        json!({ "figure": "Rider", "path_in": [[10.0, 15.0]], "speed": "walk" }),
    );
    assert!(rules().check(&no_order, &slower).is_ok());
}

#[test]
fn a_charging_horse_hits_harder_over_10_in() {
    let d = data();
    // Damage 1-5 (a d10 halved), +2 over 10 in; under 5 in the horse stops.
    let canter = horse_impact_distribution(&d, 15.0, 0);
    for (dmg, p) in canter.iter().enumerate() {
        let want = if (3..=7).contains(&dmg) { 0.2 } else { 0.0 };
        assert_relative_eq!(*p, want, epsilon = 1e-12);
    }
    let walk = horse_impact_distribution(&d, 5.0, 1);
    assert_relative_eq!(walk[2], 0.2, epsilon = 1e-12);
    assert_relative_eq!(walk[6], 0.2, epsilon = 1e-12);
    assert!(horse_impact_distribution(&d, 0.0, 0).is_empty());

    let rider = fig(
        "Rider",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"mount_speed = "canter"
status = { horse = "big" }"#,
    )
    .replace("base = \"foot\"", "base = \"mounted\"");
    let figs = rider
        + &fig(
            "Foot",
            "Black",
            10.0,
            11.8,
            270.0,
            r#"status = { armour = "0" }"#,
        );
    let mut s = at_phase(state(&figs, "", ""), "melee", 0);
    set_deck(&mut s, "Red", &["5H"]);
    set_deck(&mut s, "Black", &["AS"]);
    // Horsemanship card 5 (<= 6) goes in; d10 10: 5 + 2 (fast) + 1 (big) =
    // 8 damage; save 6 - 8 = -2: the Ace fails.
    let (after, _) = run(
        &s,
        &action(
            "horse-impact",
            json!({ "rider": "Rider", "footman": "Foot" }),
        ),
        &[1, 10, 1],
    );
    assert_eq!(named(&after, "Foot").wound, Some(Wound::Killed));
}

#[test]
fn grenades_reach_8_in_and_blast_2_in() {
    let figs = fig(
        "Bomber",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"status = { grenades = "1", order = "independent-fire" }"#,
    ) + &fig(
        "A",
        "Black",
        10.0,
        17.5,
        270.0,
        r#"status = { armour = "9" }"#,
    ) + &fig(
        "B",
        "Black",
        11.8,
        17.5,
        270.0,
        r#"status = { armour = "9" }"#,
    ) + &fig("C", "Black", 14.0, 17.5, 270.0, "")
        + &fig("Far", "Black", 10.0, 21.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "shooting", 0);
    assert!(
        refused(
            &s,
            &action("grenade", json!({ "thrower": "Bomber", "target": "Far" })),
            RefusalKind::OutOfRange
        )
        .contains("8 in")
    );
    set_deck(&mut s, "Black", &["2S", "3S"]);
    // Throw 4 (<= 6) lands on A; A and B are inside 2 in of the point, C
    // (4 in off) is not. Armour 9 turns each d10 into a morale check.
    let (after, _) = run(
        &s,
        &action("grenade", json!({ "thrower": "Bomber", "target": "A" })),
        &[4, 5, 1, 5, 1],
    );
    assert_eq!(sit(named(&after, "Bomber")).grenades, 0);
    assert_eq!(named(&after, "C").wound, None);
    assert!(!sit(named(&after, "A")).routed);
    assert!(
        refused(
            &after,
            &action("grenade", json!({ "thrower": "Bomber", "target": "A" })),
            RefusalKind::CannotDo
        )
        .contains("no grenades")
    );
}

#[test]
fn catapult_hits_on_3_or_scatters() {
    let cat = fig(
        "Catapult",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"status = { "loaded-with" = "shot" }"#,
    )
    .replace("weapon = \"musket\"", "weapon = \"catapult\"");
    let figs = cat
        + &fig("Aimed", "Black", 10.0, 30.0, 270.0, "")
        + &fig("Behind", "Black", 10.0, 34.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "shooting", 0);
    set_deck(&mut s, "Black", &["9S"]);
    // A 7 misses; scatter 4 in at 12 o'clock (straight on) lands on Behind:
    // 2d10+4 = 14 against experience 6: save -8 fails.
    let (after, ev) = run(
        &s,
        &action("artillery", json!({ "gun": "Catapult", "target": "Aimed" })),
        &[7, 4, 12, 5, 5, 1],
    );
    assert_eq!(named(&after, "Aimed").wound, None);
    assert_eq!(named(&after, "Behind").wound, Some(Wound::Killed));
    let p_hit = ev.iter().find_map(|e| match e {
        Event::Odds { odds, .. } => odds.iter().find(|o| o.name == "p_hit").map(|o| o.p),
        _ => None,
    });
    assert_relative_eq!(p_hit.expect("odds"), 0.3, epsilon = 1e-12);
}

#[test]
fn at_most_two_charges_running() {
    let figs = fig(
        "Zulu",
        "Red",
        10.0,
        10.0,
        90.0,
        r#"status = { order = "formed-charge" }"#,
    ) + &fig("Enemy", "Black", 10.0, 50.0, 270.0, "");
    let mut s = at_phase(state(&figs, "", ""), "movement-men", 0);
    s.turn = 3;
    let zulu = s.figures[0].rules.soldiers_in_time_mut();
    zulu.charged_turn = Some(2);
    zulu.charge_turns = 2;
    let charge = action(
        "move",
        json!({ "figure": "Zulu", "path_in": [[10.0, 18.0]], "charge": true }),
    );
    assert!(refused(&s, &charge, RefusalKind::AlreadyActed).contains("2 turns running"));
    // After a turn's rest he may charge again.
    s.turn = 4;
    let (after, _) = run(&s, &charge, &[]);
    assert!(sit(named(&after, "Zulu")).charging);
    // Running 10 in, walking 6 in.
    let walk = action(
        "move",
        json!({ "figure": "Zulu", "path_in": [[10.0, 16.5]] }),
    );
    assert!(refused(&s, &walk, RefusalKind::TooFar).contains("may move 6 in"));
}
