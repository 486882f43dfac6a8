#!/bin/sh
# A fake agent that undoes its previous change: it comments a line of
# calc.go in, then out again, then in... (A -> B -> A).
cat > /dev/null
if grep -q '^// tried:' calc.go; then
  sed -i.bak 's|^// tried: ||' calc.go
else
  sed -i.bak 's|^\(func Add\)|// tried: \1|' calc.go
fi
rm -f calc.go.bak
echo "I changed calc.go."
