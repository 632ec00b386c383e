package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Type texts read in one pass: what the backtracking patterns gave, for every spelling producers write. */
class MySqlTypesTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "bigint(20) unsigned|bigint unsigned", "decimal(10,2)|decimal", "ENUM('a','unsigned')|enum",
        "int(10) UNSIGNED ZEROFILL|int unsigned", "double precision|double precision", "  int  |int",
        "national   char(3)|national char", "int\tunsigned|int unsigned", "int!|''", "1int|''", "int signed|int",
        "datetime(6)|datetime", "set('x','y')|set"})
    void baseNames(String text, String base) {
        assertEquals(base, MySqlTypes.baseName(text));
    }

    @Test
    void textsThatBackTrackedAreReadInOnePass() {
        assertNull(MySqlTypes.logicalType("int" + " ".repeat(80_000) + "!"));  // 100 s under the old pattern
        assertEquals("STRING", MySqlTypes.logicalType("varchar" + "(".repeat(80_000)));  // 20 s; its base is varchar
        assertNull(MySqlTypes.logicalType("int" + " ".repeat(MySqlTypes.MAX_TYPE_TEXT)));  // longer than MySQL keeps
    }

    /** canal writes the index and the bitmask whatever the labels are (issue 49): digits are never a label. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1|enum('0','1')|0", "2|enum('0','1')|1", "1|enum('2','1')|2", "0|enum('a')|''", "b|enum('a','b')|b",
        "3|enum('a','b')|", "x|enum('a','b')|"})
    void enumDigitsAreTheIndex(String raw, String type, String label) {
        assertEquals(label, MySqlTypes.enumText(raw, type));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1|set('2','1')|2", "3|set('2','1')|2,1", "2|set('2','1')|1", "a,b|set('a','b')|a,b", "4|set('a','b')|"})
    void setDigitsAreTheBitmask(String raw, String type, String members) {
        assertEquals(members, MySqlTypes.setText(raw, type));
    }
}
