package poet;

import java.util.ArrayList;
import java.util.List;

/** A tiny code template, after square/javapoet's CodeBlock.Builder#add. */
final class Template {
  private Template() {}

  /** Formats {@code $L} placeholders, relative ({@code $L}) or indexed ({@code $1L}). */
  static String format(String format, Object... args) {
    StringBuilder out = new StringBuilder();
    boolean hasRelative = false;
    boolean hasIndexed = false;
    int relativeParameterCount = 0;
    int[] indexedParameterCount = new int[args.length];

    for (int p = 0; p < format.length(); ) {
      if (format.charAt(p) != '$') {
        out.append(format.charAt(p++));
        continue;
      }
      p++; // '$'.

      // Consume zero or more digits, leaving 'c' as the first non-digit char after the '$'.
      int indexStart = p;
      char c;
      do {
        checkArgument(p < format.length(), "dangling format characters in '%s'", format);
        c = format.charAt(p++);
      } while (c >= '0' && c <= '9');
      int indexEnd = p - 1;

      checkArgument(c == 'L', "invalid format string: '%s'", format);

      int index;
      if (indexStart < indexEnd) {
        index = Integer.parseInt(format.substring(indexStart, indexEnd)) - 1;
        hasIndexed = true;
        if (args.length > 0) {
          indexedParameterCount[index % args.length]++; // modulo is needed, checked below anyway
        }
      } else {
        index = relativeParameterCount;
        hasRelative = true;
        relativeParameterCount++;
      }

      checkArgument(index >= 0 && index < args.length,
          "index %d for '%s' not in range (received %s arguments)",
          index + 1, format.substring(indexStart - 1, indexEnd + 1), args.length);
      checkArgument(!hasIndexed || !hasRelative, "cannot mix indexed and positional parameters");
      out.append(args[index]);
    }

    checkArgument(!hasRelative || relativeParameterCount >= args.length,
        "unused arguments: expected %s, received %s", relativeParameterCount, args.length);
    if (hasIndexed) {
      List<String> unused = new ArrayList<>();
      for (int i = 0; i < args.length; i++) {
        if (indexedParameterCount[i] == 0) unused.add("$" + (i + 1));
      }
      checkArgument(unused.isEmpty(), "unused arguments: %s", String.join(", ", unused));
    }
    return out.toString();
  }

  private static void checkArgument(boolean condition, String format, Object... args) {
    if (!condition) throw new IllegalArgumentException(String.format(format, args));
  }
}
