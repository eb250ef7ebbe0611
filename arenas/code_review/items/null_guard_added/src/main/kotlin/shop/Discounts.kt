package shop

class Discounts(private val codes: Map<String, Int>) {
    /** The discount in percent for `code`, or 0 when the code is unknown or absent. */
    fun percentFor(code: String?): Int {
        if (code == null) return 0
        val percent = codes[code.trim().uppercase()] ?: return 0
        return percent.coerceIn(0, 100)
    }
}
