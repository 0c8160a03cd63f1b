/*
 * ICMP sockets for the ping probe (libs/probes/src/ping). Node has no ICMP sockets and no npm
 * package opens Linux's unprivileged ICMP datagram socket, so this small N-API addon does:
 *
 *   open(kind, family, onMessage)  kind 'dgram' | 'raw', family 4 | 6; returns a handle object
 *                                  with `fd`, or throws an Error whose `code` is the errno name
 *   filterEchoReplies(handle, id)  raw sockets: kernel-side BPF filter, only echo replies with
 *                                  this identifier are queued (every raw ICMP socket otherwise
 *                                  receives a copy of every ICMP packet)
 *   send(handle, bytes, address)   one datagram to a numeric address
 *   close(handle)                  idempotent
 *   keepRawSocketCapability(keep)  before a uid change: keep permitted capabilities (false undoes)
 *   restoreRawSocketCapability()   after it: permitted = effective = {CAP_NET_RAW}, nothing else
 *   hasRawSocketCapability()       CAP_NET_RAW in the effective set
 *
 * Nothing blocks the event loop and no thread is used: the socket is non-blocking and watched by
 * a libuv poll handle on Node's own loop; when it becomes readable every queued datagram is read
 * and handed to onMessage(error, data, address) with napi_make_callback (so promises settle).
 * An open handle holds a reference to itself and keeps the loop alive until close().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <node_api.h>
#include <uv.h>

typedef struct {
  napi_env env;
  int fd;
  int family;
  int raw;
  int closing;    /* close() was called: read nothing more */
  int delivering; /* inside onMessage: close() defers releasing the references to deliver() */
  int released;
  uv_poll_t poll;
  napi_ref self;
  napi_ref on_message;
  napi_async_context async;
} icmp_socket;

/* Datagrams are read on the loop thread only, so one buffer serves every socket. */
static unsigned char recv_buffer[65536];

#define CHECK(env, call)                                                                          \
  do {                                                                                            \
    if ((call) != napi_ok) return fail(env, "EINVAL", "invalid argument");                       \
  } while (0)

static napi_value fail(napi_env env, const char *code, const char *message) {
  napi_value code_value, message_value, error;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return NULL;
  napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error);
  napi_throw(env, error);
  return NULL;
}

/* An Error like Node's own: message "permission denied", code "EACCES", syscall "socket". */
static napi_value errno_error(napi_env env, const char *syscall_name, int err) {
  napi_value code, message, error, syscall_value;
  napi_create_string_utf8(env, uv_err_name(-err), NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, uv_strerror(-err), NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, code, message, &error);
  napi_create_string_utf8(env, syscall_name, NAPI_AUTO_LENGTH, &syscall_value);
  napi_set_named_property(env, error, "syscall", syscall_value);
  return error;
}

static napi_value throw_errno(napi_env env, const char *syscall_name, int err) {
  napi_throw(env, errno_error(env, syscall_name, err));
  return NULL;
}

static icmp_socket *unwrap_open(napi_env env, napi_value handle) {
  icmp_socket *s = NULL;
  if (napi_unwrap(env, handle, (void **)&s) != napi_ok || s == NULL || s->closing) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
    fail(env, "EBADF", "socket is closed");
    return NULL;
  }
  return s;
}

static void on_closed(uv_handle_t *handle) {
  icmp_socket *s = handle->data;
  close(s->fd);
  free(s);
}

/* Drops the JS references and the async context, then lets libuv forget the descriptor. */
static void release(icmp_socket *s) {
  if (s->released) return;
  s->released = 1;
  napi_delete_reference(s->env, s->on_message);
  napi_delete_reference(s->env, s->self);
  napi_async_destroy(s->env, s->async);
  /* The descriptor is closed once libuv has forgotten it (close callbacks phase). */
  uv_close((uv_handle_t *)&s->poll, on_closed);
}

static void deliver(icmp_socket *s, napi_value error, napi_value data, napi_value address) {
  napi_env env = s->env;
  napi_value callback, receiver, result, argv[3] = {error, data, address};
  if (napi_get_reference_value(env, s->on_message, &callback) != napi_ok || callback == NULL) return;
  napi_get_global(env, &receiver); /* napi_make_callback needs an object receiver */
  s->delivering = 1;
  napi_status status = napi_make_callback(env, s->async, receiver, callback, 3, argv, &result);
  s->delivering = 0;
  if (status == napi_pending_exception) {
    napi_value exception;
    napi_get_and_clear_last_exception(env, &exception);
    napi_fatal_exception(env, exception);
  }
  if (s->closing) release(s);
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  icmp_socket *s = poll->data;
  napi_env env = s->env;
  /* Bounded per wake-up so one busy socket cannot starve the loop; the poll fires again. */
  for (int i = 0; i < 64 && !s->closing; i++) {
    struct sockaddr_storage from;
    socklen_t from_len = sizeof from;
    ssize_t n = status < 0 ? -1
                           : recvfrom(s->fd, recv_buffer, sizeof recv_buffer, 0, (struct sockaddr *)&from,
                                      &from_len);
    int err = status < 0 ? -status : errno;
    if (n < 0 && (err == EINTR)) continue;
    if (n < 0 && (err == EAGAIN || err == EWOULDBLOCK)) break;

    napi_handle_scope scope;
    if (napi_open_handle_scope(env, &scope) != napi_ok) return;
    napi_value null_value, error, data, address;
    napi_get_null(env, &null_value);
    if (n < 0) {
      error = errno_error(env, status < 0 ? "poll" : "recvfrom", err);
      deliver(s, error, null_value, null_value);
      napi_close_handle_scope(env, scope);
      break;
    }
    char text[INET6_ADDRSTRLEN] = "";
    if (from.ss_family == AF_INET6) {
      inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&from)->sin6_addr, text, sizeof text);
    } else if (from.ss_family == AF_INET) {
      inet_ntop(AF_INET, &((struct sockaddr_in *)&from)->sin_addr, text, sizeof text);
    }
    void *copy;
    napi_create_buffer_copy(env, (size_t)n, recv_buffer, &copy, &data);
    napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &address);
    deliver(s, null_value, data, address);
    napi_close_handle_scope(env, scope);
  }
}

static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char kind[8] = "";
  size_t kind_len;
  int32_t family = 0;
  napi_valuetype callback_type = napi_undefined;
  if (argc < 3) return fail(env, "EINVAL", "open(kind, family, onMessage) needs three arguments");
  napi_get_value_string_utf8(env, argv[0], kind, sizeof kind, &kind_len);
  napi_get_value_int32(env, argv[1], &family);
  napi_typeof(env, argv[2], &callback_type);
  int type = strcmp(kind, "dgram") == 0 ? SOCK_DGRAM : strcmp(kind, "raw") == 0 ? SOCK_RAW : -1;
  if (type < 0) return fail(env, "EINVAL", "kind must be 'dgram' or 'raw'");
  if (family != 4 && family != 6) return fail(env, "EINVAL", "family must be 4 or 6");
  if (callback_type != napi_function) return fail(env, "EINVAL", "onMessage must be a function");

  int fd = socket(family == 6 ? AF_INET6 : AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  family == 6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP);
  if (fd < 0) return throw_errno(env, "socket", errno);

  uv_loop_t *loop;
  icmp_socket *s = calloc(1, sizeof *s);
  if (s == NULL) {
    close(fd);
    return throw_errno(env, "calloc", ENOMEM);
  }
  s->env = env;
  s->fd = fd;
  s->family = family;
  s->raw = type == SOCK_RAW;
  int r = napi_get_uv_event_loop(env, &loop) == napi_ok ? uv_poll_init(loop, &s->poll, fd) : UV_EINVAL;
  if (r != 0) {
    close(fd);
    free(s);
    return throw_errno(env, "uv_poll_init", -r);
  }
  s->poll.data = s;

  napi_value handle, fd_value, name;
  napi_create_object(env, &handle);
  napi_create_int32(env, fd, &fd_value);
  napi_set_named_property(env, handle, "fd", fd_value);
  napi_wrap(env, handle, s, NULL, NULL, NULL);
  napi_create_reference(env, handle, 1, &s->self);
  napi_create_reference(env, argv[2], 1, &s->on_message);
  napi_create_string_utf8(env, "IcmpSocket", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, handle, name, &s->async);
  r = uv_poll_start(&s->poll, UV_READABLE, on_readable);
  if (r != 0) {
    napi_value error = errno_error(env, "uv_poll_start", -r);
    void *ignored;
    s->closing = 1;
    napi_remove_wrap(env, handle, &ignored);
    release(s);
    napi_throw(env, error);
    return NULL;
  }
  return handle;
}

static napi_value js_filter_echo_replies(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  uint32_t id = 0;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  icmp_socket *s = unwrap_open(env, argv[0]);
  if (s == NULL) return NULL;
  CHECK(env, napi_get_value_uint32(env, argv[1], &id));
  if (id > 0xffff) return fail(env, "EINVAL", "identifier must be 0..65535");
  if (!s->raw) {
    /* Datagram sockets: the kernel already delivers only this socket's replies. */
    napi_get_boolean(env, false, &result);
    return result;
  }
  /* Raw IPv4 sockets see the IP header (X = its length); raw IPv6 sockets start at ICMPv6. */
  struct sock_filter v4[] = {
      BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
      BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0 /* echo reply */, 0, 3),
      BPF_STMT(BPF_LD | BPF_H | BPF_IND, 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, id, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
      BPF_STMT(BPF_RET | BPF_K, 0),
  };
  struct sock_filter v6[] = {
      BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 129 /* echo reply */, 0, 3),
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, id, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
      BPF_STMT(BPF_RET | BPF_K, 0),
  };
  struct sock_fprog program;
  if (s->family == 6) {
    program.len = sizeof v6 / sizeof v6[0];
    program.filter = v6;
  } else {
    program.len = sizeof v4 / sizeof v4[0];
    program.filter = v4;
  }
  if (setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0) {
    return throw_errno(env, "setsockopt", errno);
  }
  napi_get_boolean(env, true, &result);
  return result;
}

static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3) return fail(env, "EINVAL", "send(handle, bytes, address) needs three arguments");
  icmp_socket *s = unwrap_open(env, argv[0]);
  if (s == NULL) return NULL;

  bool is_typed_array = false;
  napi_typedarray_type array_type;
  size_t length = 0, offset;
  void *bytes = NULL;
  napi_value array_buffer;
  napi_is_typedarray(env, argv[1], &is_typed_array);
  if (!is_typed_array) return fail(env, "EINVAL", "bytes must be a Uint8Array");
  CHECK(env, napi_get_typedarray_info(env, argv[1], &array_type, &length, &bytes, &array_buffer, &offset));
  if (array_type != napi_uint8_array) return fail(env, "EINVAL", "bytes must be a Uint8Array");

  char text[INET6_ADDRSTRLEN + IF_NAMESIZE + 2] = "";
  size_t text_len;
  CHECK(env, napi_get_value_string_utf8(env, argv[2], text, sizeof text, &text_len));

  struct sockaddr_storage to;
  socklen_t to_len;
  memset(&to, 0, sizeof to);
  if (s->family == 6) {
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&to;
    char *zone = strchr(text, '%');
    if (zone != NULL) {
      *zone++ = '\0';
      sin6->sin6_scope_id = if_nametoindex(zone);
      if (sin6->sin6_scope_id == 0) sin6->sin6_scope_id = (uint32_t)strtoul(zone, NULL, 10);
    }
    sin6->sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, text, &sin6->sin6_addr) != 1) return fail(env, "EINVAL", "not an IPv6 address");
    to_len = sizeof *sin6;
  } else {
    struct sockaddr_in *sin = (struct sockaddr_in *)&to;
    sin->sin_family = AF_INET;
    if (inet_pton(AF_INET, text, &sin->sin_addr) != 1) return fail(env, "EINVAL", "not an IPv4 address");
    to_len = sizeof *sin;
  }
  ssize_t sent;
  do {
    sent = sendto(s->fd, bytes, length, 0, (struct sockaddr *)&to, to_len);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) return throw_errno(env, "sendto", errno);
  napi_create_int32(env, (int32_t)sent, &result);
  return result;
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  icmp_socket *s = NULL;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  napi_get_undefined(env, &result);
  if (argc < 1 || napi_remove_wrap(env, argv[0], (void **)&s) != napi_ok || s == NULL) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
    return result; /* already closed */
  }
  s->closing = 1;
  uv_poll_stop(&s->poll);
  if (!s->delivering) release(s);
  return result;
}

static int capabilities(struct __user_cap_data_struct data[2]) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  return (int)syscall(SYS_capget, &header, data);
}

static int set_capabilities(struct __user_cap_data_struct data[2]) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  return (int)syscall(SYS_capset, &header, data);
}

static napi_value js_has_raw_socket_capability(napi_env env, napi_callback_info info) {
  struct __user_cap_data_struct data[2];
  napi_value result;
  if (capabilities(data) != 0) return throw_errno(env, "capget", errno);
  napi_get_boolean(env, (data[0].effective & (1u << CAP_NET_RAW)) != 0, &result);
  return result;
}

/* Capabilities belong to a thread: call both on the thread that later opens the sockets (the JS one). */
static napi_value js_keep_raw_socket_capability(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  napi_valuetype type = napi_undefined;
  bool keep = true;
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc >= 1) napi_typeof(env, argv[0], &type);
  if (type == napi_boolean) napi_get_value_bool(env, argv[0], &keep);
  if (prctl(PR_SET_KEEPCAPS, keep ? 1 : 0, 0, 0, 0) != 0) return throw_errno(env, "prctl", errno);
  napi_get_undefined(env, &result);
  return result;
}

static napi_value js_restore_raw_socket_capability(napi_env env, napi_callback_info info) {
  struct __user_cap_data_struct data[2];
  napi_value result;
  int err = 0;
  prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  if (capabilities(data) != 0) {
    err = errno;
  } else if ((data[0].permitted & (1u << CAP_NET_RAW)) == 0) {
    err = EPERM;
  } else {
    memset(data, 0, 2 * sizeof data[0]);
    data[0].permitted = data[0].effective = 1u << CAP_NET_RAW;
    if (set_capabilities(data) != 0) err = errno;
  }
  if (err != 0) {
    /* Never leave root's other capabilities behind after a failed restore. */
    memset(data, 0, 2 * sizeof data[0]);
    set_capabilities(data);
    return throw_errno(env, "capset", err);
  }
  napi_get_undefined(env, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor properties[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"filterEchoReplies", NULL, js_filter_echo_replies, NULL, NULL, NULL, napi_enumerable, NULL},
      {"send", NULL, js_send, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hasRawSocketCapability", NULL, js_has_raw_socket_capability, NULL, NULL, NULL, napi_enumerable, NULL},
      {"keepRawSocketCapability", NULL, js_keep_raw_socket_capability, NULL, NULL, NULL, napi_enumerable,
       NULL},
      {"restoreRawSocketCapability", NULL, js_restore_raw_socket_capability, NULL, NULL, NULL,
       napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}
