/* tokens-native: the warm worker's client without a Python process.
 *
 * An agent's shell command pays for two tokenlab processes, the PreToolUse hook and
 * `tokens run`, and a Python client cannot start faster than a bare interpreter. This
 * client does only what the Python client (tokenlab/agent/client.py) does on the warm
 * path, with the same protocol bytes (tokenlab/agent/wire.py): a plain `tokens run`
 * whose output the worker analyses, and `tokens hook claude-code` calls the worker
 * answers. On anything else (another command or option, no worker, a stale or other
 * worker, a short read, a database store, output over LARGE_INPUT) it hands over to the
 * Python launcher form, which then behaves exactly as if it had been called first:
 * before a command runs, with the same arguments (and the hook's standard input); after,
 * with the captured output (tokenlab/native_finish.py).
 *
 * It stands for one Python and one tokenlab, baked in at build time
 * (tokenlab/agent/native.py builds it): TOKENS_PYTHON, TOKENS_ROOT (the folder that
 * holds the package), TOKENS_VERSION and TOKENS_STAMP (client.code_stamp()). A client left
 * behind by an upgrade of the package in place (its version changed, the client not rebuilt)
 * would make every worker it meets answer stale and restart: it hands every call to Python
 * instead. It never logs or stores environment values.
 * C99 + POSIX (Linux: memfd_create, O_TMPFILE, posix_spawn's setsid).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if !defined(TOKENS_PYTHON) || !defined(TOKENS_ROOT) || !defined(TOKENS_VERSION) || !defined(TOKENS_STAMP)
#error "build with tokenlab/agent/native.py: it defines TOKENS_PYTHON, TOKENS_ROOT, TOKENS_VERSION, TOKENS_STAMP"
#endif

#define ENTRY_FILE TOKENS_ROOT "/tokenlab/__main__.py"
#define STAMP TOKENS_STAMP
/* How tokenlab/agent/native.py tells that this build stands for a Python and a tokenlab. */
__attribute__((used)) static const char BUILD_MARK[] =
    "\ntokenlab-native-build\n" TOKENS_PYTHON "\n" STAMP "\n";

#define LARGE_INPUT (8u << 20) /* client.LARGE_INPUT */
#define MAX_SOCKET_PATH 107    /* client._MAX_SOCKET_PATH */
#define CHUNK (1 << 16)

extern char **environ;
static int g_argc;
static char **g_argv;

/* ---- handing over to the Python launcher --------------------------------------------- */

/* `<python> -S <entry> ARGS…`, standard input replaced by `data` when it was read here. */
static void exec_python(const char *data, size_t size, int read_stdin) {
    if (read_stdin) {
        int fd = memfd_create("tokens-stdin", MFD_CLOEXEC);
        if (fd < 0) fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) {
            size_t at = 0;
            while (at < size) {
                ssize_t n = write(fd, data + at, size - at);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                at += (size_t)n;
            }
            lseek(fd, 0, SEEK_SET);
            dup2(fd, 0);
            close(fd);
        }
    }
    int hook = g_argc > 1 && strcmp(g_argv[1], "hook") == 0;
    char **argv = calloc((size_t)g_argc + 3, sizeof *argv);
    /* A hook whose launcher is gone lets the command through: Python would exit 2, which
     * Claude Code takes for a block. */
    if (argv != NULL && !(hook && access(ENTRY_FILE, R_OK) != 0)) {
        argv[0] = TOKENS_PYTHON;
        argv[1] = "-S";
        argv[2] = ENTRY_FILE;
        for (int i = 1; i < g_argc; i++) argv[i + 2] = g_argv[i];
        execv(TOKENS_PYTHON, argv);
    }
    /* No Python to hand over to: a hook lets the command through (never fail closed). */
    if (hook) _exit(0);
    fprintf(stderr, "tokens: cannot run %s\n", TOKENS_PYTHON);
    _exit(127);
}

/* Whether the package still has the version this client was built for: its
 * `__init__.py` still assigns it, as written. */
static int same_version(void) {
    static const char assignment[] = "\n__version__ = \"" TOKENS_VERSION "\"\n";
    char text[4096];
    int fd = open(TOKENS_ROOT "/tokenlab/__init__.py", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t size = read(fd, text, sizeof text);
    close(fd);
    return size > 0 && memmem(text, (size_t)size, assignment, sizeof assignment - 1) != NULL;
}

/* client.start_worker: `<python> -m tokenlab.agent.worker ROOT`, detached, not waited for. */
static void start_worker(const char *root) {
    pid_t pid = fork();
    if (pid != 0) {
        if (pid > 0) waitpid(pid, NULL, 0); /* the intermediate child exits at once */
        return;
    }
    if (fork() != 0) _exit(0);
    setsid();
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    closefrom(3);
    execl(TOKENS_PYTHON, TOKENS_PYTHON, "-m", "tokenlab.agent.worker", root, (char *)NULL);
    _exit(127);
}

/* ---- a growing byte buffer, and Python literals in it -------------------------------- */

typedef struct {
    char *data;
    size_t size, capacity;
} Buffer;

static int put(Buffer *b, const void *bytes, size_t size) {
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + size) capacity *= 2;
        char *data = realloc(b->data, capacity);
        if (data == NULL) return -1;
        b->data = data;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, bytes, size);
    b->size += size;
    return 0;
}

static void put_text(Buffer *b, const char *text) { put(b, text, strlen(text)); }

/* The length of the valid UTF-8 sequence at `s` (Python's strict decoder), or 0. */
static size_t utf8_sequence(const unsigned char *s, size_t left, uint32_t *code) {
    unsigned char c = s[0];
    size_t size;
    unsigned char low = 0x80, high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) size = 2, *code = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) size = 3, *code = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) size = 4, *code = c & 0x07;
    else return 0;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F; /* no surrogates */
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F; /* nothing above U+10FFFF */
    if (left < size || s[1] < low || s[1] > high) return 0;
    for (size_t i = 1; i < size; i++) {
        if (i > 1 && (s[i] < 0x80 || s[i] > 0xBF)) return 0;
        *code = (*code << 6) | (s[i] & 0x3F);
    }
    return size;
}

/* `text` as a Python string literal whose value is `os.fsdecode(text)` (UTF-8 with
 * surrogateescape, as Python decodes argv, the environment and the working folder), so
 * every byte round-trips: as `repr` writes it where `text` is ASCII; other characters as
 * escapes (`repr` leaves printable ones as they are, which takes Unicode's tables). */
static void put_literal(Buffer *b, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    size_t left = strlen(text);
    char quote = strchr(text, '\'') && !strchr(text, '"') ? '"' : '\'', escape[16];
    put(b, &quote, 1);
    while (left) {
        uint32_t code;
        size_t size = 1;
        const char *named = *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
        if (*s == '\\' || *s == (unsigned char)quote) {
            escape[0] = '\\', escape[1] = (char)*s;
            put(b, escape, 2);
        } else if (named) {
            put_text(b, named);
        } else if (*s >= 0x20 && *s < 0x7F) {
            put(b, s, 1);
        } else if (*s < 0x80) {
            snprintf(escape, sizeof escape, "\\x%02x", *s);
            put_text(b, escape);
        } else if ((size = utf8_sequence(s, left, &code)) != 0) {
            snprintf(escape, sizeof escape, "\\U%08x", (unsigned)code);
            put_text(b, escape);
        } else {
            size = 1;
            snprintf(escape, sizeof escape, "\\udc%02x", *s);
            put_text(b, escape);
        }
        s += size, left -= size;
    }
    put(b, &quote, 1);
}

static void put_optional(Buffer *b, const char *text) {
    if (text == NULL) put_text(b, "None");
    else put_literal(b, text);
}

static void put_key(Buffer *b, const char *key, int first) {
    if (!first) put_text(b, ", ");
    put_literal(b, key);
    put_text(b, ": ");
}

static void put_number(Buffer *b, long long value) {
    char text[32];
    snprintf(text, sizeof text, "%lld", value);
    put_text(b, text);
}

/* A float literal whose value is `value`: the shortest that reads back the same. */
static void put_float(Buffer *b, double value) {
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, value);
        if (strtod(text, NULL) == value) break;
    }
    if (strpbrk(text, ".en") == NULL) strcat(text, ".0");
    put_text(b, text);
}

static void put_bool(Buffer *b, int value) { put_text(b, value ? "True" : "False"); }

/* ---- where the worker is (client.store_root, socket_path) ------------------------------ */

static int database_store(const char *explicit_store) {
    const char *chosen = explicit_store && *explicit_store ? explicit_store : getenv("TOKENLAB_STORE");
    if (chosen == NULL) return 0;
    return strncmp(chosen, "postgresql://", 13) == 0 || strncmp(chosen, "postgres://", 11) == 0;
}

/* os.path.abspath: joined to the working folder, then posixpath.normpath. */
static char *absolute_path(const char *path) {
    char folder[PATH_MAX];
    Buffer joined = {0};
    if (path[0] != '/') {
        if (getcwd(folder, sizeof folder) == NULL) return NULL;
        put_text(&joined, folder);
        put_text(&joined, "/");
    }
    put_text(&joined, path);
    put(&joined, "", 1);
    char *result = malloc(joined.size + 2), *out = result;
    if (result == NULL || joined.data == NULL) return NULL;
    const char *s = joined.data;
    int slashes = 0;
    while (s[slashes] == '/') slashes++;
    *out++ = '/';
    if (slashes == 2) *out++ = '/'; /* POSIX keeps a leading `//` */
    char *base = out;
    while (*s) {
        while (*s == '/') s++;
        const char *end = s;
        while (*end && *end != '/') end++;
        size_t size = (size_t)(end - s);
        if (size == 1 && s[0] == '.') {
        } else if (size == 2 && s[0] == '.' && s[1] == '.') {
            if (out > base) {
                out--;
                while (out > base && out[-1] != '/') out--;
                if (out > base) out--;
            }
        } else if (size) {
            if (out > base) *out++ = '/';
            memcpy(out, s, size);
            out += size;
        }
        s = end;
    }
    *out = '\0';
    free(joined.data);
    return result;
}

static char *store_root(const char *explicit_store) {
    const char *chosen = explicit_store && *explicit_store ? explicit_store : getenv("TOKENLAB_STORE");
    return absolute_path(chosen && *chosen ? chosen : "var/context");
}

/* The worker's socket in `root`, or NULL: too long for sun_path, or no such file. */
static char *socket_path(const char *root) {
    size_t size = strlen(root) + sizeof "/worker.sock";
    if (size - 1 > MAX_SOCKET_PATH) return NULL;
    char *path = malloc(size);
    struct stat info;
    if (path == NULL) return NULL;
    snprintf(path, size, "%s/worker.sock", root);
    if (stat(path, &info) != 0) {
        free(path);
        return NULL;
    }
    return path;
}

/* A connection to `address`; -1 with errno set when none. */
static int connect_to(const char *address) {
    struct sockaddr_un where = {.sun_family = AF_UNIX};
    int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return -1;
    memcpy(where.sun_path, address, strlen(address) + 1);
    if (connect(sock, (struct sockaddr *)&where, sizeof where) != 0) {
        int error = errno;
        close(sock);
        errno = error;
        return -1;
    }
    return sock;
}

/* ---- the protocol (wire.py) ------------------------------------------------------------ */

#define ANSWERED 'A'
#define STALE 'S'
#define OTHER_PROTOCOL 0 /* an answer that does not open with the magic */
#define NO_ANSWER (-1)   /* the connection ended early, or failed */

typedef struct {
    int kind;
    int32_t exit_code;
    char *stdout_bytes, *stderr_bytes;
    size_t stdout_size, stderr_size;
} Answer;

static void put_size(Buffer *b, uint64_t size) {
    unsigned char bytes[8];
    for (int i = 7; i >= 0; i--, size >>= 8) bytes[i] = (unsigned char)(size & 0xFF);
    put(b, bytes, 8);
}

static uint64_t read_size(const unsigned char *bytes, int width) {
    uint64_t size = 0;
    for (int i = 0; i < width; i++) size = (size << 8) | bytes[i];
    return size;
}

static int send_all(int sock, const char *data, size_t size) {
    while (size) {
        ssize_t sent = send(sock, data, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        data += sent, size -= (size_t)sent;
    }
    return 0;
}

static int receive_exactly(int sock, void *into, size_t size) {
    char *at = into;
    while (size) {
        ssize_t got = recv(sock, at, size, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        at += got, size -= (size_t)got;
    }
    return 0;
}

/* wire.send_request, then wire.receive_answer. `header` is the dict's text without its
 * closing brace: the stamp goes last, as `{**header, "stamp": code_stamp()}`. */
static Answer ask(int sock, Buffer *header, const char *payload, size_t payload_size) {
    static const char preamble_header[] = "{\"protocol\": 2}";
    Answer answer = {.kind = NO_ANSWER};
    Buffer request = {0};
    put_key(header, "stamp", 0);
    put_literal(header, STAMP);
    put_text(header, "}");
    unsigned char length[4] = {0, 0, 0, sizeof preamble_header - 1};
    put(&request, length, 4);
    put_size(&request, 0);
    put_text(&request, preamble_header);
    put_size(&request, header->size);
    put_size(&request, payload_size);
    put(&request, header->data, header->size);
    /* A worker of another protocol answers the preamble alone and closes: read on. */
    if (send_all(sock, request.data, request.size) == 0 && payload_size)
        send_all(sock, payload, payload_size);
    free(request.data);
    unsigned char head[4 + 1 + 4 + 16];
    if (receive_exactly(sock, head, 4) != 0) return answer;
    if (memcmp(head, "TLW\x02", 4) != 0) {
        answer.kind = OTHER_PROTOCOL;
        return answer;
    }
    if (receive_exactly(sock, head + 4, sizeof head - 4) != 0) return answer;
    answer.stdout_size = read_size(head + 9, 8);
    answer.stderr_size = read_size(head + 17, 8);
    answer.stdout_bytes = malloc(answer.stdout_size + 1);
    answer.stderr_bytes = malloc(answer.stderr_size + 1);
    if (answer.stdout_bytes == NULL || answer.stderr_bytes == NULL ||
        receive_exactly(sock, answer.stdout_bytes, answer.stdout_size) != 0 ||
        receive_exactly(sock, answer.stderr_bytes, answer.stderr_size) != 0)
        return answer;
    answer.exit_code = (int32_t)read_size(head + 5, 4);
    answer.kind = head[4];
    return answer;
}

static void write_all(int fd, const char *data, size_t size) {
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        data += n, size -= (size_t)n;
    }
}

/* ---- `tokens hook claude-code` (client.claude_hook, entry._claude_hook) ---------------- */

static const char *const CLAUDE_HOOK_ENV[] = {"HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR"};

/* A list of string literals: `['a', 'b']`. */
static void put_list(Buffer *b, char *const *items, int count) {
    put_text(b, "[");
    for (int i = 0; i < count; i++) {
        if (i) put_text(b, ", ");
        put_literal(b, items[i]);
    }
    put_text(b, "]");
}

/* client.claude_hook's header, as far as the stamp. */
static void put_hook_header(Buffer *header, const char *root, const char *cwd) {
    put_text(header, "{");
    put_key(header, "op", 1);
    put_literal(header, "claude-hook");
    put_key(header, "store", 0);
    put_literal(header, root);
    put_key(header, "args", 0);
    put_list(header, g_argv + 3, g_argc - 3);
    put_key(header, "executable", 0);
    put_literal(header, TOKENS_PYTHON);
    put_key(header, "cwd", 0);
    put_literal(header, cwd);
    put_key(header, "env", 0);
    put_text(header, "{");
    int first = 1;
    for (size_t i = 0; i < sizeof CLAUDE_HOOK_ENV / sizeof *CLAUDE_HOOK_ENV; i++) {
        const char *value = getenv(CLAUDE_HOOK_ENV[i]);
        if (value == NULL) continue;
        put_key(header, CLAUDE_HOOK_ENV[i], first);
        put_literal(header, value);
        first = 0;
    }
    put_text(header, "}");
}

static int claude_hook(void) {
    Buffer data = {0};
    char chunk[CHUNK], cwd[PATH_MAX];
    for (;;) {
        ssize_t n = read(0, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return 0; /* as the Python hook: nothing printed, the command goes through */
        if (n == 0) break;
        if (put(&data, chunk, (size_t)n) != 0) return 0; /* as the Python hook out of memory */
    }
    const char *env = getenv("TOKENLAB_WORKER");
    if ((env && strcmp(env, "0") == 0) || database_store(NULL) || getcwd(cwd, sizeof cwd) == NULL ||
        memmem(data.data ? data.data : "", data.size, "PostToolUse", 11) != NULL)
        exec_python(data.data, data.size, 1);
    char *root = store_root(NULL), *address = root ? socket_path(root) : NULL;
    if (address == NULL) exec_python(data.data, data.size, 1);
    int sock = connect_to(address);
    if (sock < 0) {
        if (errno == ENOENT || errno == ECONNREFUSED) start_worker(root);
        exec_python(data.data, data.size, 1);
    }
    Buffer header = {0};
    put_hook_header(&header, root, cwd);
    Answer answer = ask(sock, &header, data.data, data.size);
    close(sock);
    if (answer.kind == OTHER_PROTOCOL || answer.kind == STALE) start_worker(root);
    if (answer.kind != ANSWERED || answer.exit_code != 0) exec_python(data.data, data.size, 1);
    write_all(1, answer.stdout_bytes, answer.stdout_size);
    return 0;
}

/* ---- `tokens run` (entry.plain_run, client.run, capture.capture_output) ---------------- */

typedef struct {
    const char *shell, *store, *granularity;
    int split, redact, trace, as_json;
    char **command;
    int command_count;
} RunArguments;

/* `run` options: name, whether it takes a value. `--timeout` is left to Python. */
static const struct {
    const char *name;
    int takes_value;
} RUN_OPTIONS[] = {{"--shell", 1}, {"--split", 0}, {"--granularity", 1}, {"--no-redact", 0},
                   {"--trace", 0},  {"--store", 1}, {"--json", 0}};
#define RUN_OPTION_COUNT (sizeof RUN_OPTIONS / sizeof *RUN_OPTIONS)

/* entry.plain_run's reading of argv; 0 when Python must read it. */
static int plain_run(RunArguments *run) {
    const char *values[RUN_OPTION_COUNT] = {0};
    int at = 2;
    while (at < g_argc && strncmp(g_argv[at], "--", 2) == 0 && strcmp(g_argv[at], "--") != 0) {
        const char *arg = g_argv[at], *equals = strchr(arg, '=');
        size_t size = equals ? (size_t)(equals - arg) : strlen(arg);
        size_t option = 0;
        while (option < RUN_OPTION_COUNT &&
               !(strlen(RUN_OPTIONS[option].name) == size && strncmp(RUN_OPTIONS[option].name, arg, size) == 0))
            option++;
        if (option == RUN_OPTION_COUNT || values[option] || (equals && !RUN_OPTIONS[option].takes_value)) return 0;
        const char *value = equals ? equals + 1 : "";
        if (RUN_OPTIONS[option].takes_value && !equals) {
            if (++at == g_argc) return 0;
            value = g_argv[at];
        }
        values[option] = value;
        at++;
    }
    if (at < g_argc && strcmp(g_argv[at], "--") == 0) at++;
    run->command = g_argv + at;
    run->command_count = g_argc - at;
    run->shell = values[0];
    run->split = values[1] != NULL;
    run->granularity = values[2] ? values[2] : "coarse";
    run->redact = values[3] == NULL;
    run->trace = values[4] != NULL;
    run->store = values[5];
    run->as_json = values[6] != NULL;
    if ((run->shell == NULL) == (run->command_count == 0)) return 0;
    if (strcmp(run->granularity, "coarse") != 0 && strcmp(run->granularity, "fine") != 0) return 0;
    return !(run->command_count && strcmp(run->command[0], "-") == 0);
}

/* host_env.host_of: the agent host whose marker the environment holds. */
static const char *host_of(void) {
    static const char *const markers[][2] = {{"CLAUDECODE", "claude-code"}, {"CODEX_THREAD_ID", "codex"},
                                             {"CODEX_SANDBOX", "codex"},    {"GEMINI_CLI", "gemini"}};
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++) {
        const char *value = getenv(markers[i][0]);
        if (value && *value) return markers[i][1];
    }
    return NULL;
}

/* launcher.opener: `tokens` when the PATH finds it, else `<python> -m tokenlab` quoted. */
static void put_opener(Buffer *b) {
    const char *path = getenv("PATH");
    Buffer candidate = {0};
    for (const char *folder = path ? path : "/bin:/usr/bin";;) {
        const char *end = strchrnul(folder, ':');
        struct stat info;
        candidate.size = 0;
        put(&candidate, folder, (size_t)(end - folder));
        if (end > folder) put_text(&candidate, "/");
        put(&candidate, "tokens", 7);
        if (stat(candidate.data, &info) == 0 && access(candidate.data, X_OK) == 0 && !S_ISDIR(info.st_mode)) {
            free(candidate.data);
            put_literal(b, "tokens");
            return;
        }
        if (*end == '\0') break;
        folder = end + 1;
    }
    free(candidate.data);
    static const char bare[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
    Buffer opener = {0};
    const char *python = TOKENS_PYTHON;
    if (*python && strspn(python, bare) == strlen(python)) {
        put_text(&opener, python);
    } else { /* launcher.shell_quote */
        put_text(&opener, "'");
        for (const char *c = python; *c; c++) {
            if (*c == '\'') put_text(&opener, "'\"'\"'");
            else put(&opener, c, 1);
        }
        put_text(&opener, "'");
    }
    put_text(&opener, " -m tokenlab");
    put(&opener, "", 1);
    put_literal(b, opener.data);
    free(opener.data);
}

typedef struct {
    int spools[2], streams, status;
    double duration;
} Captured;

static volatile pid_t forwarding_to = 0;

static void forward_signal(int signum) {
    int saved = errno;
    if (forwarding_to > 0) killpg(forwarding_to, signum);
    errno = saved;
}

static const int FORWARDED[] = {SIGINT, SIGTERM, SIGHUP};

/* Descriptors above stderr that a child would inherit (capture._inherited_descriptors). */
static void close_inherited(posix_spawn_file_actions_t *actions) {
    DIR *listing = opendir("/proc/self/fd");
    if (listing == NULL) return;
    int own = dirfd(listing);
    for (struct dirent *entry; (entry = readdir(listing)) != NULL;) {
        int fd = atoi(entry->d_name), flags;
        if (fd > 2 && fd != own && (flags = fcntl(fd, F_GETFD)) >= 0 && !(flags & FD_CLOEXEC))
            posix_spawn_file_actions_addclose(actions, fd);
    }
    closedir(listing);
}

static double now(void) {
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    return (double)at.tv_sec + (double)at.tv_nsec / 1e9;
}

static void copy_out(int from, int to) {
    char chunk[CHUNK];
    for (;;) {
        ssize_t n = read(from, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        write_all(to, chunk, (size_t)n);
    }
}

/* Copy each pipe into its spool until every one closes. */
static void pump(const int pipes[2], const int spools[2], int streams) {
    if (streams == 1) {
        copy_out(pipes[0], spools[0]);
        return;
    }
    struct pollfd watched[2] = {{.fd = pipes[0], .events = POLLIN}, {.fd = pipes[1], .events = POLLIN}};
    int open_pipes = 2;
    char chunk[CHUNK];
    while (open_pipes) {
        if (poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        for (int i = 0; i < 2; i++) {
            if (watched[i].fd < 0 || !watched[i].revents) continue;
            ssize_t n = read(watched[i].fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                watched[i].fd = -1;
                open_pipes--;
                continue;
            }
            write_all(spools[i], chunk, (size_t)n);
        }
    }
}

/* Run the command, its output spooled in ROOT/spool; 0 if it could not be started. */
/* Start `argv` as capture._spawn does (its own session, `outputs` as its stdout and
 * stderr, no other inherited descriptor, SIGPIPE and SIGXFSZ at their defaults), with the
 * forwarded signals held: `mask` gets the mask to restore once their handlers are set. */
static int spawn(char *const *argv, const int outputs[2], pid_t *child, sigset_t *mask) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t defaults, forwarded;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, outputs[0], 1);
    posix_spawn_file_actions_adddup2(&actions, outputs[1], 2);
    close_inherited(&actions);
    posix_spawnattr_init(&attributes);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGXFSZ);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    sigemptyset(&forwarded);
    for (int i = 0; i < 3; i++) sigaddset(&forwarded, FORWARDED[i]);
    sigprocmask(SIG_BLOCK, &forwarded, mask);
    posix_spawnattr_setsigmask(&attributes, mask); /* the command starts with the mask as it was */
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    int failed = posix_spawnp(child, argv[0], &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return failed;
}

/* Run the command, its output spooled in ROOT/spool; 0 if it could not be started. */
static int capture_output(const RunArguments *run, const char *root, Captured *captured) {
    char folder[PATH_MAX];
    int pipes[2][2], streams = run->split ? 2 : 1;
    snprintf(folder, sizeof folder, "%s/spool", root);
    if (mkdir(folder, 0700) != 0 && errno != EEXIST) return 0;
    for (int i = 0; i < streams; i++) {
        captured->spools[i] = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (captured->spools[i] < 0 || pipe2(pipes[i], O_CLOEXEC) != 0) return 0;
    }
    captured->streams = streams;
    char *shell_argv[] = {"/bin/sh", "-c", (char *)run->shell, NULL};
    int outputs[2] = {pipes[0][1], pipes[streams - 1][1]}, read_ends[2] = {pipes[0][0], pipes[streams - 1][0]};
    sigset_t mask;
    pid_t child;
    double started = now();
    int failed = spawn(run->shell ? shell_argv : run->command, outputs, &child, &mask);
    for (int i = 0; i < streams; i++) close(pipes[i][1]);
    /* Held signals arrive once their handlers are set: each is passed on to the command. */
    struct sigaction forward = {.sa_handler = forward_signal}, previous[3];
    sigemptyset(&forward.sa_mask);
    forwarding_to = failed ? 0 : child;
    for (int i = 0; !failed && i < 3; i++) sigaction(FORWARDED[i], &forward, &previous[i]);
    sigprocmask(SIG_SETMASK, &mask, NULL);
    if (failed) return 0; /* Python reports it in its own words */
    pump(read_ends, captured->spools, streams);
    for (int i = 0; i < streams; i++) close(pipes[i][0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    for (int i = 0; i < 3; i++) sigaction(FORWARDED[i], &previous[i], NULL);
    forwarding_to = 0;
    captured->status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    captured->duration = now() - started;
    return 1;
}

/* The analysis of a captured run in Python (tokenlab/native_finish.py), its
 * spools handed on as descriptors. */
static void finish_in_python(const Captured *captured) {
    char status[16], spools[2][16];
    Buffer duration = {0};
    put_float(&duration, captured->duration);
    put(&duration, "", 1);
    snprintf(status, sizeof status, "%d", captured->status);
    for (int i = 0; i < 2; i++) {
        if (i < captured->streams) {
            fcntl(captured->spools[i], F_SETFD, 0);
            snprintf(spools[i], sizeof spools[i], "%d", captured->spools[i]);
        } else {
            snprintf(spools[i], sizeof spools[i], "-");
        }
    }
    char **argv = calloc((size_t)g_argc + 11, sizeof *argv);
    if (argv != NULL) {
        char *head[] = {TOKENS_PYTHON, "-P", "-c",
                        "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from tokenlab.native_finish import main; main(sys.argv[2:])",
                        TOKENS_ROOT, status, duration.data, spools[0], spools[1], "--"};
        int at = 0;
        for (; at < 10; at++) argv[at] = head[at];
        for (int i = 1; i < g_argc; i++) argv[at++] = g_argv[i];
        execv(TOKENS_PYTHON, argv);
    }
    fprintf(stderr, "tokens: cannot run %s\n", TOKENS_PYTHON);
    _exit(127);
}

static void put_run_options(Buffer *header, const RunArguments *run);

/* client._run_header, then the streams' names and sizes, as far as the stamp. */
static void put_run_header(Buffer *header, const RunArguments *run, const Captured *captured, const char *root,
                           const char *cwd, const size_t sizes[2]) {
    static const char *const names[2][2] = {{"output", NULL}, {"stdout", "stderr"}};
    put_text(header, "{");
    put_key(header, "op", 1);
    put_literal(header, "run");
    put_key(header, "store", 0);
    put_literal(header, root);
    put_key(header, "command", 0);
    put_list(header, run->command, run->command_count);
    put_key(header, "shell", 0);
    put_optional(header, run->shell);
    put_key(header, "status", 0);
    put_number(header, captured->status);
    put_key(header, "duration", 0);
    put_float(header, captured->duration);
    put_key(header, "timed_out", 0);
    put_bool(header, 0);
    put_key(header, "killed", 0);
    put_bool(header, 0);
    put_key(header, "cwd", 0);
    put_literal(header, cwd);
    put_key(header, "host", 0);
    put_optional(header, host_of());
    put_key(header, "opener", 0);
    put_opener(header);
    put_run_options(header, run);
    put_key(header, "streams", 0);
    put_text(header, "[");
    for (int i = 0; i < captured->streams; i++) {
        if (i) put_text(header, ", ");
        put_text(header, "[");
        put_literal(header, names[captured->streams - 1][i]);
        put_text(header, ", ");
        put_number(header, (long long)sizes[i]);
        put_text(header, "]");
    }
    put_text(header, "]");
}

/* The run's options in the header, in `client._run_header`'s order. */
static void put_run_options(Buffer *header, const RunArguments *run) {
    put_key(header, "split", 0);
    put_bool(header, run->split);
    put_key(header, "timeout", 0);
    put_text(header, "None");
    put_key(header, "granularity", 0);
    put_literal(header, run->granularity);
    put_key(header, "redact", 0);
    put_bool(header, run->redact);
    put_key(header, "as_json", 0);
    put_bool(header, run->as_json);
    put_key(header, "trace", 0);
    put_bool(header, run->trace);
}

/* What Python does to its own environment as it starts (PEP 538), and so to the command's
 * under the Python client: a C or POSIX LC_CTYPE, with no LC_ALL, is coerced to UTF-8 by
 * setting LC_CTYPE. 0 when Python would also print a warning: it must run then. */
static int coerce_locale_as_python(void) {
    static const char *const targets[] = {"C.UTF-8", "C.utf8", "UTF-8"};
    const char *all = getenv("LC_ALL"), *option = getenv("PYTHONCOERCECLOCALE");
    if ((all && *all) || (option && strcmp(option, "0") == 0)) return 1;
    setlocale(LC_CTYPE, "");
    const char *current = setlocale(LC_CTYPE, NULL);
    if (current == NULL || (strcmp(current, "C") != 0 && strcmp(current, "POSIX") != 0)) return 1;
    if (option && strcmp(option, "warn") == 0) return 0;
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        const char *codeset = setlocale(LC_CTYPE, targets[i]) ? nl_langinfo(CODESET) : NULL;
        if (codeset && *codeset) {
            setenv("LC_CTYPE", targets[i], 1);
            break;
        }
    }
    setlocale(LC_CTYPE, "C");
    return 1;
}

static int run_command(void) {
    RunArguments run = {0};
    char cwd[PATH_MAX];
    const char *env = getenv("TOKENLAB_WORKER");
    if (isatty(2) || !plain_run(&run) || (env && strcmp(env, "0") == 0) || database_store(run.store) ||
        getcwd(cwd, sizeof cwd) == NULL || !coerce_locale_as_python())
        exec_python(NULL, 0, 0);
    char *root = store_root(run.store), *address = root ? socket_path(root) : NULL;
    int sock = address ? connect_to(address) : -1;
    Captured captured = {.spools = {-1, -1}};
    if (sock < 0 || !capture_output(&run, root, &captured)) exec_python(NULL, 0, 0);
    size_t sizes[2] = {0, 0}, total = 0;
    for (int i = 0; i < captured.streams; i++) {
        sizes[i] = (size_t)lseek(captured.spools[i], 0, SEEK_END);
        total += sizes[i];
    }
    char *payload = total <= LARGE_INPUT ? malloc(total + 1) : NULL;
    if (payload == NULL) finish_in_python(&captured);
    for (size_t i = 0, at = 0; i < (size_t)captured.streams; at += sizes[i++])
        if (pread(captured.spools[i], payload + at, sizes[i], 0) != (ssize_t)sizes[i]) finish_in_python(&captured);
    Buffer header = {0};
    put_run_header(&header, &run, &captured, root, cwd, sizes);
    Answer answer = ask(sock, &header, payload, total);
    close(sock);
    if (answer.kind == OTHER_PROTOCOL || answer.kind == STALE) start_worker(root);
    if (answer.kind != ANSWERED) finish_in_python(&captured);
    write_all(1, answer.stdout_bytes, answer.stdout_size);
    write_all(2, answer.stderr_bytes, answer.stderr_size);
    return answer.exit_code;
}

int main(int argc, char **argv) {
    g_argc = argc, g_argv = argv;
    signal(SIGPIPE, SIG_IGN); /* as Python: a closed reader is a failed write, not a death */
    if (!same_version()) exec_python(NULL, 0, 0);
    if (argc >= 3 && strcmp(argv[1], "hook") == 0 && strcmp(argv[2], "claude-code") == 0) {
        for (int i = 1; i < argc; i++)
            if (strcmp(argv[i], "--help") == 0) exec_python(NULL, 0, 0);
        return claude_hook();
    }
    if (argc >= 2 && strcmp(argv[1], "run") == 0) {
        return run_command();
    }
    exec_python(NULL, 0, 0);
    return 127;
}
