N24=/root/.cache/messaging-service/node24/node_modules/node/bin/node
for n in 10 50 100 200; do
  for lib in werift wrtc; do echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; nice -n -10 timeout 300 $N24 spike.mjs $lib $n 10; done
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; ENC=evan nice -n -10 timeout 300 $N24 spike.mjs werift 100 10
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; nice -n -10 timeout 300 /usr/bin/node spike.mjs werift 50 10
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; nice -n -10 timeout 300 /usr/bin/node spike.mjs wrtc 50 10
echo DONE
