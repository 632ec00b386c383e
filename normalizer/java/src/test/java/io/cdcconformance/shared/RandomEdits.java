package io.cdcconformance.shared;

import java.util.Random;

/** The tests' edits of a valid text: up to {@code most - 1} characters inserted, removed or replaced at random, each
 * from {@code alphabet} (a fixed seed gives the same edits every run). */
final class RandomEdits {
    private RandomEdits() {
    }

    static String edited(String valid, Random random, String alphabet, int most) {
        StringBuilder text = new StringBuilder(valid);
        for (int edits = random.nextInt(most); edits > 0; edits--) {
            int at = text.length() == 0 ? 0 : random.nextInt(text.length());
            char c = alphabet.charAt(random.nextInt(alphabet.length()));
            switch (random.nextInt(3)) {
                case 0 -> text.insert(at, c);
                case 1 -> { if (text.length() > 0) { text.deleteCharAt(at); } }
                default -> { if (text.length() > 0) { text.setCharAt(at, c); } }
            }
        }
        return text.toString();
    }
}
