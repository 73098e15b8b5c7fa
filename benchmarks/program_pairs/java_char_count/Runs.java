import java.util.*;
public class Runs {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        String s = in.next();
        int best = 1, run = 1;
        for (int i = 1; i < n; i++) {
            if (s.charAt(i) == s.charAt(i - 1)) run++;
            else { best = Math.max(best, run); run = 1; }
        }
        System.out.println(best);
    }
}
