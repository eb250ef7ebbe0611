package shop

import kotlin.test.Test
import kotlin.test.assertEquals

class DiscountsTest {
    private val d = Discounts(mapOf("SPRING" to 15, "BROKEN" to 140))

    @Test fun known() = assertEquals(15, d.percentFor(" spring "))
    @Test fun unknown() = assertEquals(0, d.percentFor("WINTER"))
    @Test fun absent() = assertEquals(0, d.percentFor(null))
    @Test fun clamped() = assertEquals(100, d.percentFor("BROKEN"))
}
