/*
 * divergent's Java harness: a warm JVM that runs one Java program once per input, each run in a
 * fresh class loader, so each run starts with the program's static state as a new JVM would give
 * it, without the JVM's start-up (about 80 ms of CPU) per input.
 *
 * It runs inside the sandbox, started by the launcher (divergent/sandbox/child/warm_jvm.py) in the
 * run's memory cgroup, with the JVM flags of a cold run. Everything that decides a verdict is
 * measured by the launcher, outside this JVM: CPU time, wall clock, the output cap, memory (the
 * cgroup). This harness only gives each run what a new JVM would give it:
 *
 *   - its own stdin, stdout and stderr: FileDescriptor.in/out/err point, for the run, at the
 *     run's input file and the launcher's two FIFOs, and System.in/out/err are made on them as the
 *     JVM makes them (so streams built on FileDescriptor.out by the program work too); when the
 *     run ends the FIFOs are closed: the launcher sees the end of its output exactly;
 *   - its own classes: a class loader per run whose parent is the platform loader (the harness is
 *     invisible to the program);
 *   - System.exit and Runtime.halt: a security manager records the status and ends the run's output
 *     at that point (as the JVM would stop), then unwinds the calling thread;
 *   - the exit status a JVM would have: 0, 1 after an uncaught exception in main, or exit's; the
 *     non-daemon threads the run started are waited for, as the JVM waits for them;
 *   - the JVM-wide settings a run may change, put back: system properties, the default locale,
 *     time zone and uncaught-exception handler.
 *
 * What it cannot give a run as a new JVM would, it does not try: a program that registers a
 * shutdown hook, starts a process, loads a native library, installs its own security manager or
 * sets a JVM-wide factory makes the harness say "cold" at once, and the launcher runs that input
 * in a JVM of its own instead. A run that leaves threads running, or hits a VirtualMachineError
 * (out of memory, stack overflow), gets its result and then a fresh JVM ("discard").
 *
 * Nothing here is a defence: the program shares this JVM and can switch the security manager off
 * (by reflection, setting `current` to null). What must hold whatever the program does is enforced
 * outside the JVM: the launcher measures every limit, and the JVM runs under a system-call filter
 * installed before its first instruction (threads but no process: a fork kills it, and that input
 * runs in a JVM of its own). The security manager only spares honest programs that kill.
 *
 * Protocol (lines of ASCII): fd 0 carries commands, fd 1 answers.
 *   launcher -> harness:  "run HEX HEX ...\n" (the run's arguments, UTF-8 in hex) | "quit\n"
 *   harness -> launcher:  "ready\n" once; per run "started\n", then "ended STATUS FLAGS\n"
 *                         (FLAGS "-" or "discard"); "cold REASON\n" instead whenever it cannot
 *                         vouch for the run.
 * Arguments: CONTROL_DIR (with "in", and the FIFOs "out" and "err"), CLASSES_DIR, MAIN_CLASS.
 */

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.Permission;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;

public final class DivergentHarness {
    private static Field fdField, closedField, parentField, otherParentsField;
    private static Method closeMethod;
    private static PrintStream status;
    private static Path control;
    private static Path classesDir;
    private static String mainClass;
    private static final Map<String, byte[]> CLASSES = new HashMap<>();
    private static ProtectionDomain domain;

    /** The run now going (null between runs); its state is read by the security manager. */
    static volatile Run current;

    public static void main(String[] args) throws Exception {
        Thread.currentThread().setName("divergent-harness");
        control = Path.of(args[0]);
        classesDir = Path.of(args[1]);
        mainClass = args[2];
        BufferedReader commands = new BufferedReader(new InputStreamReader(
                new FileInputStream("/proc/self/fd/0"), StandardCharsets.US_ASCII));
        status = new PrintStream(new FileOutputStream("/proc/self/fd/1"), true, "US-ASCII");
        try {
            fdField = field("fd");
            closedField = field("closed");
            parentField = field("parent");
            otherParentsField = field("otherParents");
            closeMethod = FileDescriptor.class.getDeclaredMethod("close");
            closeMethod.setAccessible(true);
            loadClasses();
            domain = new ProtectionDomain(new CodeSource(classesDir.toUri().toURL(), (Certificate[]) null), null);
            System.setSecurityManager(new Guard());
        } catch (Throwable error) {
            say("cold cannot-start " + word(error));
            return;
        }
        Properties properties = (Properties) System.getProperties().clone();
        Locale locale = Locale.getDefault();
        TimeZone zone = TimeZone.getDefault();
        setFd(FileDescriptor.in, -1);
        setFd(FileDescriptor.out, -1);
        setFd(FileDescriptor.err, -1);
        say("ready");
        String line;
        while ((line = commands.readLine()) != null) {
            if (!line.startsWith("run")) break;
            Properties copy = new Properties();
            copy.putAll(properties);
            System.setProperties(copy);
            Locale.setDefault(locale);
            TimeZone.setDefault(zone);
            Thread.setDefaultUncaughtExceptionHandler(null);
            String[] words = line.split(" ");
            String[] runArgs = new String[words.length - 1];
            for (int k = 1; k < words.length; k++) runArgs[k - 1] = unhex(words[k]);
            Run run = new Run(runArgs);
            String answer;
            try {
                answer = run.go();
            } catch (Throwable error) {
                answer = "cold harness " + word(error);
            }
            current = null;
            say(answer);  // after "cold" or "discard" the launcher kills this JVM
            Runtime runtime = Runtime.getRuntime();
            if (runtime.totalMemory() - runtime.freeMemory() > runtime.maxMemory() / 3) System.gc();
        }
        Runtime.getRuntime().halt(0);
    }

    /** One run of the program. */
    static final class Run {
        final String[] args;
        final Object lock = new Object();
        final Thread harness = Thread.currentThread();
        volatile boolean exited, uncaught, vmError, mainDone;
        /** the harness no longer waits for this run: no interrupt may reach it after (the next run) */
        boolean finished;
        volatile int exitStatus;
        int inFd = -1, outFd = -1, errFd = -1;
        volatile boolean closed;

        Run(String[] args) {
            this.args = args;
        }

        String go() throws Exception {
            inFd = openFd(new FileInputStream(control.resolve("in").toFile()));
            outFd = openFd(new FileOutputStream(control.resolve("out").toFile()));
            errFd = openFd(new FileOutputStream(control.resolve("err").toFile()));
            point(FileDescriptor.in, inFd);
            point(FileDescriptor.out, outFd);
            point(FileDescriptor.err, errFd);
            // as the JVM makes them (System.initPhase1)
            System.setIn(new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
            System.setOut(stream(FileDescriptor.out, System.getProperty("sun.stdout.encoding")));
            System.setErr(stream(FileDescriptor.err, System.getProperty("sun.stderr.encoding")));
            Set<Thread> before = liveThreads();
            RunLoader loader = new RunLoader();
            MethodHandle main;
            try {
                Class<?> type = Class.forName(mainClass, false, loader);
                Method method = type.getMethod("main", String[].class);
                if (!Modifier.isStatic(method.getModifiers()) || method.getReturnType() != void.class) {
                    return "cold no-main";
                }
                method.setAccessible(true);
                main = MethodHandles.lookup().unreflect(method);
            } catch (ReflectiveOperationException | LinkageError | SecurityException error) {
                return "cold no-main";  // the JVM's own message is the cold run's
            }
            say("started");
            current = this;
            ThreadGroup system = Thread.currentThread().getThreadGroup();
            while (system.getParent() != null) system = system.getParent();
            ThreadGroup group = new ThreadGroup(system, "main");
            group.setDaemon(true);  // gone with its last thread: nothing of the run is kept
            Thread thread = new Thread(group, () -> {
                try {
                    main.invokeExact(args);
                } catch (Throwable error) {
                    if (error instanceof Exit) return;
                    if (error instanceof VirtualMachineError) vmError = true;
                    uncaught = true;
                    trim(error, Collections.newSetFromMap(new IdentityHashMap<>()));
                    // as the JVM reports it ("Exception in thread "main" ..."), before the run ends
                    Thread self = Thread.currentThread();
                    try {
                        self.getUncaughtExceptionHandler().uncaughtException(self, error);
                    } catch (Throwable ignored) {
                        // as the JVM ignores what its handler throws
                    }
                } finally {
                    synchronized (lock) {
                        mainDone = true;
                        lock.notifyAll();
                    }
                }
            }, "main");
            thread.setContextClassLoader(loader);
            thread.start();
            // the JVM ends when main and every non-daemon thread have ended, or at exit
            try {
                synchronized (lock) {
                    while (!exited && !mainDone) lock.wait();
                }
                while (!exited) {
                    Thread waiting = null;
                    for (Thread other : liveThreads()) {
                        if (!before.contains(other) && !other.isDaemon() && other != thread) waiting = other;
                    }
                    if (waiting == null) break;
                    waiting.join();
                }
            } catch (InterruptedException interrupted) {
                // System.exit in another thread of the run
            }
            synchronized (lock) {
                // exit() interrupts only under the lock and before this: a late interrupt would
                // cut the next run's wait short and close its output before it printed
                finished = true;
                Thread.interrupted();
            }
            String code = Integer.toString(exited ? exitStatus : uncaught ? 1 : 0);
            closeRun();
            // a run whose threads outlive it, or that broke the JVM, gets a fresh JVM after it
            thread.join(exited ? 100 : 0);
            boolean leftovers = false;
            for (Thread other : liveThreads()) {
                if (!before.contains(other)) leftovers = true;
            }
            return "ended " + code + (leftovers || vmError ? " discard" : " -");
        }

        /** System.exit or Runtime.halt in this run: the run ends here, as the JVM would. */
        void exit(int code) {
            synchronized (lock) {
                if (!exited) {
                    exitStatus = code & 0xFF;
                    exited = true;
                    closeRun();
                }
                lock.notifyAll();
                if (!finished) harness.interrupt();  // the harness may be joining other threads of the run
            }
        }

        /** The end of the run's output: the launcher sees end of file on both FIFOs. */
        synchronized void closeRun() {
            if (closed) return;
            closed = true;
            for (FileDescriptor descriptor : new FileDescriptor[] {FileDescriptor.in, FileDescriptor.out, FileDescriptor.err}) {
                try {
                    if (fdField.getInt(descriptor) >= 0) closeMethod.invoke(descriptor);
                    setFd(descriptor, -1);
                } catch (ReflectiveOperationException error) {
                    throw new IllegalStateException(error);
                }
            }
        }
    }

    /** A run's end by System.exit, unwinding the thread that called it (printed by nobody). */
    @SuppressWarnings("removal")
    static final class Exit extends ThreadDeath {
        private static final long serialVersionUID = 1L;
    }

    /** Exit, and what only a new JVM can give a run, go to the harness. */
    @SuppressWarnings("removal")
    static final class Guard extends SecurityManager {
        @Override
        public void checkPermission(Permission permission) {
            Run run = current;
            if (run == null || !(permission instanceof RuntimePermission)) return;
            String name = permission.getName();
            if (name.equals("shutdownHooks") || name.equals("setSecurityManager") || name.equals("setFactory")) {
                cold(name);
            }
        }

        @Override
        public void checkPermission(Permission permission, Object context) {
            checkPermission(permission);
        }

        @Override
        public void checkExit(int code) {
            Run run = current;
            if (run == null) return;  // the harness itself
            run.exit(code);
            throw new Exit();
        }

        @Override
        public void checkExec(String command) {
            if (current != null) cold("exec");
        }

        @Override
        public void checkLink(String library) {
            if (current == null) return;
            // the JDK loads its own libraries too: only the program's own call is native code
            boolean program = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                    .walk(frames -> frames.map(StackWalker.StackFrame::getDeclaringClass)
                            .anyMatch(type -> type.getClassLoader() instanceof RunLoader));
            if (program) cold("native");
        }
    }

    /** Say "cold" and stop: the launcher kills this JVM and runs the input in a JVM of its own. */
    static void cold(String why) {
        current = null;
        say("cold " + why);
        Runtime.getRuntime().halt(3);
    }

    /** The program's classes, defined afresh for each run (their bytes read once). */
    static final class RunLoader extends ClassLoader {
        RunLoader() {
            super(ClassLoader.getPlatformClassLoader());  // unnamed: its frames print as the app loader's do
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = CLASSES.get(name);
            if (bytes == null) throw new ClassNotFoundException(name);
            return defineClass(name, bytes, 0, bytes.length, domain);
        }

        @Override
        protected URL findResource(String name) {
            File file = classesDir.resolve(name).toFile();
            try {
                return file.isFile() ? file.toURI().toURL() : null;
            } catch (MalformedURLException error) {
                return null;
            }
        }

        @Override
        protected Enumeration<URL> findResources(String name) {
            URL found = findResource(name);
            return Collections.enumeration(found == null ? List.of() : List.of(found));
        }
    }

    private static void loadClasses() throws IOException {
        try (var files = Files.walk(classesDir)) {
            for (Path path : (Iterable<Path>) files::iterator) {
                String relative = classesDir.relativize(path).toString();
                if (!relative.endsWith(".class") || !Files.isRegularFile(path)) continue;
                String name = relative.substring(0, relative.length() - 6).replace(File.separatorChar, '.');
                CLASSES.put(name, Files.readAllBytes(path));
            }
        }
    }

    private static PrintStream stream(FileDescriptor descriptor, String encoding) throws UnsupportedEncodingException {
        OutputStream out = new BufferedOutputStream(new FileOutputStream(descriptor), 128);
        return encoding == null ? new PrintStream(out, true) : new PrintStream(out, true, encoding);
    }

    /** The raw descriptor of a stream just opened, which then owns nothing (no cleaner closes it). */
    private static int openFd(java.io.Closeable stream) throws Exception {
        FileDescriptor descriptor = stream instanceof FileInputStream
                ? ((FileInputStream) stream).getFD() : ((FileOutputStream) stream).getFD();
        int fd = fdField.getInt(descriptor);
        fdField.setInt(descriptor, -1);
        stream.close();  // unregisters its cleaner; its descriptor is -1 now: nothing is closed
        return fd;
    }

    /** Make a standard FileDescriptor the run's, as fresh as the JVM's own at start-up. */
    private static void point(FileDescriptor descriptor, int fd) throws ReflectiveOperationException {
        fdField.setInt(descriptor, fd);
        closedField.setBoolean(descriptor, false);
        parentField.set(descriptor, null);
        otherParentsField.set(descriptor, null);
    }

    private static void setFd(FileDescriptor descriptor, int fd) {
        try {
            fdField.setInt(descriptor, fd);
        } catch (IllegalAccessException error) {
            throw new IllegalStateException(error);
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field found = FileDescriptor.class.getDeclaredField(name);
        found.setAccessible(true);
        return found;
    }

    private static Set<Thread> liveThreads() {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) root = root.getParent();
        Thread[] threads = new Thread[root.activeCount() + 16];
        int count;
        while ((count = root.enumerate(threads, true)) == threads.length) threads = new Thread[threads.length * 2];
        Set<Thread> found = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int k = 0; k < count; k++) if (threads[k].isAlive()) found.add(threads[k]);
        return found;
    }

    /** The stack of an exception out of main as a JVM prints it: nothing below main. */
    static void trim(Throwable error, Set<Throwable> seen) {
        if (error == null || !seen.add(error)) return;
        StackTraceElement[] frames = error.getStackTrace();
        int end = frames.length;
        for (int k = 0; k < frames.length; k++) {
            String type = frames[k].getClassName();
            if ("app".equals(frames[k].getClassLoaderName())
                    && (type.equals("DivergentHarness") || type.startsWith("DivergentHarness$"))) {
                end = k;
                break;
            }
        }
        if (end < frames.length) {
            List<StackTraceElement> kept = new ArrayList<>(List.of(frames).subList(0, end));
            error.setStackTrace(kept.toArray(new StackTraceElement[0]));
        }
        trim(error.getCause(), seen);
        for (Throwable suppressed : error.getSuppressed()) trim(suppressed, seen);
    }

    private static String unhex(String text) {
        byte[] bytes = new byte[text.length() / 2];
        for (int k = 0; k < bytes.length; k++) bytes[k] = (byte) Integer.parseInt(text.substring(2 * k, 2 * k + 2), 16);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String word(Throwable error) {
        return error.getClass().getSimpleName();
    }

    static synchronized void say(String line) {
        status.print(line + "\n");
        status.flush();
    }
}
