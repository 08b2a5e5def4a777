//! The partial decoder (`capture::blocks`) against the whole decode of the
//! `image` crate (zune-jpeg) on the same bytes: the fixture photos (4:2:0
//! files from the renderer), frames of the crowded table through the
//! `image` crate's encoder, and seq01 decoded in order, where only what
//! changed is made again.

use std::path::PathBuf;

use image::RgbImage;
use spotter::capture::blocks::{
    Coefficients, PartialDecodeParams, PartialDecoder, read_coefficients,
};
use spotter::capture::decode::{JpegDecoder, decode_jpeg};
use spotter::vision::crowd::{Sampling, through_jpeg, webcam_jpeg, with_sensor_noise};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Largest and mean absolute channel difference.
fn difference(a: &RgbImage, b: &RgbImage) -> (u8, f64) {
    assert_eq!(a.dimensions(), b.dimensions());
    let (mut worst, mut sum) = (0u8, 0u64);
    for (x, y) in a.as_raw().iter().zip(b.as_raw()) {
        let d = x.abs_diff(*y);
        worst = worst.max(d);
        sum += u64::from(d);
    }
    (worst, sum as f64 / a.as_raw().len() as f64)
}

#[test]
fn a_whole_frame_has_the_pixels_of_the_image_crates_decode() {
    let files = [
        root().join("photoreal/cam01/frame-01.jpg"),
        root().join("photoreal/cam02/frame-01.jpg"),
        root().join("photoreal/seq01/frame-03.jpg"),
        root().join("demo/frame-01.jpg"),
    ];
    // The fixture photos (4:2:0), and one as a webcam's 4:2:2 MJPEG.
    let photo = decode_jpeg(
        &std::fs::read(&files[0]).expect("fixture photo"),
        JpegDecoder::Image,
    )
    .expect("decode");
    let webcam = webcam_jpeg(&photo, 85, Sampling::S422).expect("jpeg");
    let frames: Vec<(String, Vec<u8>)> = files
        .iter()
        .map(|f| {
            (
                f.display().to_string(),
                std::fs::read(f).expect("fixture photo"),
            )
        })
        .chain([("cam01 frame-01 as 4:2:2 MJPEG".to_string(), webcam)])
        .collect();
    for (name, bytes) in &frames {
        let want = decode_jpeg(bytes, JpegDecoder::Image).expect("image crate decode");
        let mut dec = PartialDecoder::new(PartialDecodeParams::default());
        let got = dec.decode(bytes).expect("partial decode").clone();
        let (worst, mean) = difference(&want, &got);
        println!(
            "{name}: {}x{}, largest difference {worst}, mean {mean:.4}",
            got.width(),
            got.height()
        );
        assert_eq!(
            dec.last_work().mcus,
            dec.last_work().of,
            "the first frame is whole"
        );
        assert!(worst <= 2, "{name}: largest difference {worst}");
        assert!(mean <= 0.02, "{name}: mean difference {mean}");
    }
}

/// Per 16x16 pixel square (an MCU of a 4:2:0 frame), the mean of each
/// channel.
fn square_means(img: &RgbImage) -> Vec<[f64; 3]> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (sw, sh) = (w.div_ceil(16), h.div_ceil(16));
    let mut sum = vec![[0.0f64; 4]; sw * sh];
    for (x, y, p) in img.enumerate_pixels() {
        let k = (y as usize / 16) * sw + x as usize / 16;
        for c in 0..3 {
            sum[k][c] += f64::from(p[c]);
        }
        sum[k][3] += 1.0;
    }
    sum.iter()
        .map(|s| [s[0] / s[3], s[1] / s[3], s[2] / s[3]])
        .collect()
}

#[test]
fn frames_in_order_are_made_again_only_where_they_changed() {
    // seq01's frames are separate renders: besides the figures moved, the
    // render noise differs everywhere. A square left as it was differs from
    // the whole decode by that noise only: its means stay within the change
    // test's reach (a block mean moves at most `mean_level` in Y, Cb and
    // Cr, which is about 2 (1 + 1.77) levels in a colour channel).
    let params = PartialDecodeParams::default();
    let reach = f64::from(params.mean_level) * 2.8 + 1.0;
    let dir = root().join("photoreal/seq01");
    let mut dec = PartialDecoder::new(params);
    let mut shares = Vec::new();
    for k in 1..=5 {
        let bytes = std::fs::read(dir.join(format!("frame-{k:02}.jpg"))).expect("fixture");
        // The same frame twice: the second time nothing changed, and only
        // the rolling refresh is made again.
        for again in [false, true] {
            let got = dec.decode(&bytes).expect("partial decode").clone();
            let work = dec.last_work();
            let want = decode_jpeg(&bytes, JpegDecoder::Image).expect("decode");
            let (worst, mean) = difference(&want, &got);
            let off = square_means(&want)
                .iter()
                .zip(square_means(&got))
                .flat_map(|(a, b)| (0..3).map(move |c| (a[c] - b[c]).abs()))
                .fold(0.0, f64::max);
            println!(
                "frame {k}{}: {} of {} MCUs made, largest difference {worst}, mean {mean:.3}, largest square-mean difference {off:.2} levels",
                if again { " again" } else { "" },
                work.mcus,
                work.of
            );
            if again {
                assert!(
                    work.share() < 0.1,
                    "frame {k} again: {} MCUs made",
                    work.mcus
                );
            } else if k > 1 {
                shares.push(work.share());
            } else {
                assert_eq!(worst, 0, "the first frame is the whole decode");
            }
            assert!(
                off <= reach,
                "frame {k}: a square's mean is {off:.2} levels off"
            );
        }
    }
    // Separate renders (new noise, light and hands) may well change most
    // of the frame; the shares are printed, the live case is below.
    println!("shares made after the first frame: {shares:?}");
}

#[test]
fn a_live_frame_with_new_noise_and_one_figure_moved_is_made_again_only_there() {
    let bytes = std::fs::read(root().join("photoreal/cam01/frame-01.jpg")).expect("fixture");
    let base = decode_jpeg(&bytes, JpegDecoder::Image).expect("decode");
    let jpeg = |img: &RgbImage| through_jpeg(img, 85).expect("jpeg").0;
    let mut dec = PartialDecoder::new(PartialDecodeParams::default());
    dec.decode(&jpeg(&with_sensor_noise(&base, 2.0, 1)))
        .expect("decode");
    // The next frame: new noise, and a figure-sized disc painted where
    // there was table (a figure put down).
    let mut next = with_sensor_noise(&base, 2.0, 2);
    let (cx, cy, r) = (700i64, 500i64, 22i64);
    for y in cy - r..=cy + r {
        for x in cx - r..=cx + r {
            if (x - cx).pow(2) + (y - cy).pow(2) <= r * r {
                next.put_pixel(x as u32, y as u32, image::Rgb([200, 40, 30]));
            }
        }
    }
    let bytes = jpeg(&next);
    let got = dec.decode(&bytes).expect("partial decode").clone();
    let work = dec.last_work();
    let want = decode_jpeg(&bytes, JpegDecoder::Image).expect("decode");
    println!("{} of {} MCUs made", work.mcus, work.of);
    // The disc's MCUs and their ring, and the refresh rows: a few percent.
    assert!(work.share() < 0.1, "{} of {} MCUs made", work.mcus, work.of);
    // Where the figure was put down, and a block round it, the pixels of
    // the whole decode.
    let near = r + 8;
    for y in (cy - near)..=(cy + near) {
        for x in (cx - near)..=(cx + near) {
            if (x - cx).pow(2) + (y - cy).pow(2) > near * near {
                continue;
            }
            let (x, y) = (x as u32, y as u32);
            assert_eq!(got.get_pixel(x, y), want.get_pixel(x, y), "at {x},{y}");
        }
    }
    // Elsewhere the last frame's noise: means within the test's reach.
    let reach = f64::from(PartialDecodeParams::default().mean_level) * 2.8 + 1.0;
    let off = square_means(&want)
        .iter()
        .zip(square_means(&got))
        .flat_map(|(a, b)| (0..3).map(move |c| (a[c] - b[c]).abs()))
        .fold(0.0, f64::max);
    assert!(off <= reach, "a square's mean is {off:.2} levels off");
}

#[test]
fn a_new_frame_size_starts_again() {
    let a = std::fs::read(root().join("photoreal/cam01/frame-01.jpg")).expect("fixture");
    let b = std::fs::read(root().join("demo/frame-01.jpg")).expect("fixture");
    let mut dec = PartialDecoder::new(PartialDecodeParams::default());
    let first = dec.decode(&a).expect("decode").dimensions();
    let second = dec.decode(&b).expect("decode").dimensions();
    let want = decode_jpeg(&b, JpegDecoder::Image).expect("decode");
    assert_eq!(second, want.dimensions(), "after {first:?}");
    assert_eq!(dec.last_work().mcus, dec.last_work().of);
}

#[test]
fn a_broken_frame_is_an_error_and_the_picture_is_kept() {
    let good = std::fs::read(root().join("photoreal/cam01/frame-01.jpg")).expect("fixture");
    let mut dec = PartialDecoder::new(PartialDecodeParams::default());
    let before = dec.decode(&good).expect("decode").clone();
    let mut c = Coefficients::default();
    for broken in [
        b"garbage".to_vec(),
        good[..200].to_vec(),
        [&good[..2], &[0xFF, 0xC4, 0x00, 0x03, 0xFF][..]].concat(),
    ] {
        let e = dec.decode(&broken).expect_err("a broken frame");
        println!("{} bytes: {e}", broken.len());
        assert!(!e.reason.is_empty());
        assert!(read_coefficients(&broken, &mut c).is_err());
    }
    // The good frame again: the same picture.
    let after = dec.decode_whole(&good).expect("decode").clone();
    assert_eq!(before.as_raw(), after.as_raw());
}
