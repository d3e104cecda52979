/*
 * The machine's floor for the accuracy benchmark: the least a client can do per token chunk.
 * epoll, one read() per ready socket, CLOCK_MONOTONIC (the clock of process.hrtime) right after
 * it, nothing else. Closed loop: each connection sends the next request when its stream ends.
 * Prints "responseId arrivalNs" for every chunk that carries content, then "cpu <user+system us>"
 * of the whole process; see src/accuracy.ts.
 *
 *   cc -O2 -o epoll-reader epoll-reader.c && ./epoll-reader PORT STREAMS REQUESTS BODY
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  char id[64];
  long long ns;
} arrival;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: epoll-reader PORT STREAMS REQUESTS BODY\n");
    return 2;
  }
  int port = atoi(argv[1]), streams = atoi(argv[2]), requests = atoi(argv[3]);
  const char *body = argv[4];
  char request[8192];
  int request_len = snprintf(request, sizeof request,
                             "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                             "content-type: application/json\r\ncontent-length: %zu\r\n\r\n%s",
                             strlen(body), body);
  arrival *arrivals = malloc(sizeof(arrival) * (size_t)requests * 256);
  long count = 0;
  int started = 0, done = 0;
  int ep = epoll_create1(0);
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = inet_addr("127.0.0.1");
  /* Every connection first, every request after: a blocking connect() that waits out a SYN retransmit
   * (1 s, when 1,024 connects overflow the server's accept backlog) must not stall reads in progress. */
  int connections = streams < requests ? streams : requests;
  int *fds = malloc(sizeof(int) * (size_t)connections);
  for (int i = 0; i < connections; i++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
      perror("connect");
      return 1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, O_NONBLOCK);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = fd};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &event);
    fds[i] = fd;
  }
  for (int i = 0; i < connections; i++) {
    if (write(fds[i], request, request_len) != request_len) return 1;
    started++;
  }
  static char buffer[65537];
  struct epoll_event events[1024];
  while (done < requests) {
    int ready = epoll_wait(ep, events, 1024, 60000);
    if (ready <= 0) {
      fprintf(stderr, "epoll-reader: no data for 60 s\n");
      return 1;
    }
    for (int k = 0; k < ready; k++) {
      int fd = events[k].data.fd;
      ssize_t n = read(fd, buffer, 65536);
      long long ns = now_ns();
      if (n <= 0) continue;
      buffer[n] = 0;
      for (char *at = buffer; (at = strstr(at, "data: {")) != NULL;) {
        char *end = strstr(at, "\n\n");
        if (end == NULL) break;
        char *id = strstr(at, "\"id\":\"");
        char *content = strstr(at, "\"content\":\"");
        if (id != NULL && id < end && content != NULL && content < end && content[11] != '"') {
          id += 6;
          int len = 0;
          while (id[len] != '"' && len < 63) len++;
          memcpy(arrivals[count].id, id, len);
          arrivals[count].id[len] = 0;
          arrivals[count++].ns = ns;
        }
        at = end;
      }
      if (strstr(buffer, "\r\n0\r\n\r\n") != NULL || strncmp(buffer, "0\r\n\r\n", 5) == 0) {
        done++;
        if (started < requests) {
          started++;
          if (write(fd, request, request_len) != request_len) return 1;
        }
      }
    }
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  long long cpu_us = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec +
                     usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec;
  for (long i = 0; i < count; i++) printf("%s %lld\n", arrivals[i].id, arrivals[i].ns);
  printf("cpu %lld\n", cpu_us);
  return 0;
}
